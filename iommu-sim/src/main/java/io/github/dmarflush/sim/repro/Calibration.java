package io.github.dmarflush.sim.repro;

import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.commons.math3.exception.TooManyEvaluationsException;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.MaxIter;
import org.apache.commons.math3.optim.SimpleBounds;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.CMAESOptimizer;
import org.apache.commons.math3.random.MersenneTwister;

/**
 * Fits the cost model's unmeasured times to FreeBSD's state B: the hold times of the
 * critical sections, the receive path's work outside them, the engine's time per
 * invalidation, and the interrupt's latency, so that the model run as state B reproduces B's
 * throughput and, for each lockstat row it has a call site for, the row's spin events per
 * second and mean spin time.
 *
 * <h2>Method</h2>
 * Minimize the weighted sum of squared log errors of those figures
 * ({@link Observables.Figure#logError}); the throughput weighs as much as all the rows' spin
 * rates together, and as much as all their mean spin times together,
 * over the {@link #FITTED_B} costs, each searched in log space within its range, with CMA-ES (Apache Commons Math 3, chosen because the model's
 * figures are deterministic but not smooth in its inputs, which defeats gradient and
 * simplex methods, and CMA-ES is a well-kept derivative-free method for that), seeded, so the
 * fit itself is reproducible. Each evaluation runs state B in virtual time for the given
 * window. State C's figures are never looked at.
 *
 * <p>The PAUSE time is fitted, not measured here: FreeBSD's machine had an Intel CPU (it has
 * VT-d), whose PAUSE takes from about 10 to about 140 cycles depending on the generation,
 * and this machine's does not stand for it ({@code tools/pause-latency.c} measures this one).
 *
 * <p>The engine's time is fitted as the IOTLB descriptor's; the wait descriptor's is kept at
 * the cost file's value: FreeBSD's tables constrain only when an entry's wait completes,
 * which is their sum.
 */
public final class Calibration {

    /**
     * A cost the fit searches, and the range it searches it in.
     *
     * @param cost the cost
     * @param min the smallest value tried
     * @param max the largest value tried
     */
    public record Range(Cost cost, long min, long max) {
    }

    /**
     * The costs the fit to state B searches: times of 10 ns to 100 µs; the PAUSE time from 5 to
     * 200 ns; the variation of times from 1% to 90%.
     */
    public static final List<Range> FITTED_B = List.of(
            new Range(Cost.RX_RXEOF_NS, 10, 100_000), new Range(Cost.RX_REFILL_NS, 10, 100_000),
            new Range(Cost.RX_STACK_NS, 10, 100_000), new Range(Cost.UNLOAD_HOLD_NS, 10, 100_000),
            new Range(Cost.GAS_MAP_HOLD_NS, 10, 100_000), new Range(Cost.GAS_FREE_HOLD_NS, 10, 100_000),
            new Range(Cost.TASK_ENTRY_NS, 10, 100_000), new Range(Cost.TASK_ICS_NS, 10, 100_000),
            new Range(Cost.QI_IOTLB_NS, 10, 100_000), new Range(Cost.INTR_LATENCY_NS, 10, 100_000),
            new Range(Cost.LOCK_PAUSE_NS, 5, 200), new Range(Cost.VARIATION_PCT, 1, 90));

    /** The costs the fit to state A searches: the two sections only state A has. */
    public static final List<Range> FITTED_A = List.of(
            new Range(Cost.A_LOAD_HOLD_NS, 10, 100_000), new Range(Cost.A_UNLOAD_HOLD_NS, 10, 100_000));

    /** State A's rows of the sections only A has: the ones the fit to A looks at. */
    static final List<String> A_ONLY_SITES = List.of("iommu_bus_dmamap_load_something", "iommu_bus_dmamap_unload");

    /**
     * The outcome of a fit.
     *
     * @param costs the fitted cost model
     * @param figures state B's figures, FreeBSD's beside the fitted model's
     * @param objective the sum of squared log errors at the fit
     * @param evaluations model runs it took
     */
    public record Fit(CostModel costs, List<Observables.Figure> figures, double objective, int evaluations) {
    }

    private final ModelState state;
    private final FreeBsdReference.State measured;
    private final List<Range> fitted;
    private final boolean throughput;
    private final Predicate<FreeBsdReference.Row> rows;
    private final CostModel start;
    private final ModelState.Setup setup;
    private int evaluations;

    private Calibration(FreeBsdReference reference, ModelState state, List<Range> fitted, boolean throughput,
            Predicate<FreeBsdReference.Row> rows, CostModel start, ModelState.Setup setup) {
        this.state = state;
        this.measured = reference.state(state.name());
        this.fitted = fitted;
        this.throughput = throughput;
        this.rows = rows;
        this.start = Objects.requireNonNull(start, "start");
        this.setup = Objects.requireNonNull(setup, "setup");
    }

    /**
     * The fit to state B: the {@link #FITTED_B} costs against B's throughput and every B row
     * the model has a call site for.
     *
     * @param reference FreeBSD's data
     * @param start the cost model whose fitted values are the starting point; the others stay
     * @param setup how each evaluation runs the state
     * @return the calibration
     */
    public static Calibration stateB(FreeBsdReference reference, CostModel start, ModelState.Setup setup) {
        return new Calibration(reference, ModelState.B, FITTED_B, true, r -> true, start, setup);
    }

    /**
     * The fit to state A, after the fit to B: only the {@link #FITTED_A} costs, the two
     * sections A has and B has not, against A's rows of those sections. A's other rows and its
     * throughput are left to check the B fit with.
     *
     * @param reference FreeBSD's data
     * @param start the cost model fitted to B
     * @param setup how each evaluation runs the state
     * @return the calibration
     */
    public static Calibration stateA(FreeBsdReference reference, CostModel start, ModelState.Setup setup) {
        return new Calibration(reference, ModelState.A, FITTED_A, false,
                r -> A_ONLY_SITES.contains(r.modelSite()), start, setup);
    }

    private CostModel costsAt(double[] x, String source) {
        CostModel c = start;
        for (int i = 0; i < fitted.size(); i++) {
            c = c.with(fitted.get(i).cost(), Math.round(Math.exp(x[i])), source);
        }
        return c;
    }

    /**
     * The fit's objective at a cost model: the state's weighted sum of squared log errors.
     *
     * @param costs a cost model
     * @return the figures and the objective
     */
    public Fit evaluate(CostModel costs) {
        RunResult r = state.run(costs, setup);
        evaluations++;
        List<Observables.Figure> f = Observables.compare(measured, r, costs, throughput, rows);
        double sum = 0;
        for (int i = 0; i < f.size(); i++) {
            double e = f.get(i).logError();
            // The throughput (the first figure) weighs as much as the rows' rates together,
            // and as much as their mean spin times together.
            sum += (throughput && i == 0 ? (f.size() - 1) / 2.0 : 1) * e * e;
        }
        if (!r.clean()) {
            sum += 100; // a run that fails its checks is no fit
        }
        return new Fit(costs, f, sum, evaluations);
    }

    /**
     * Runs the fit.
     *
     * @param maxEvaluations the most model runs to spend
     * @param seed seeds CMA-ES
     * @param source the source to write beside each fitted value
     * @param progress told the objective of each evaluation
     * @return the best fit found
     */
    public Fit fit(int maxEvaluations, long seed, String source, Consumer<Fit> progress) {
        int n = fitted.size();
        double[] x0 = new double[n];
        double[] lo = new double[n];
        double[] hi = new double[n];
        double[] sigma = new double[n];
        for (int i = 0; i < n; i++) {
            Range r = fitted.get(i);
            x0[i] = Math.log(Math.max(r.min(), Math.min(r.max(), start.get(r.cost()))));
            lo[i] = Math.log(r.min());
            hi[i] = Math.log(r.max());
            sigma[i] = 0.5;
        }
        CMAESOptimizer cmaes = new CMAESOptimizer(maxEvaluations, 0, true, 0, 0, new MersenneTwister(seed), false,
                null);
        Fit[] best = {null};
        try {
            cmaes.optimize(
                    new MaxEval(maxEvaluations), new MaxIter(maxEvaluations),
                    new ObjectiveFunction(x -> {
                        Fit f = evaluate(costsAt(x, source));
                        if (best[0] == null || f.objective() < best[0].objective()) {
                            best[0] = f;
                        }
                        progress.accept(f);
                        return f.objective();
                    }),
                    GoalType.MINIMIZE, new InitialGuess(x0), new SimpleBounds(lo, hi),
                    new CMAESOptimizer.Sigma(sigma), new CMAESOptimizer.PopulationSize(4 + (int) (3 * Math.log(n))));
        } catch (TooManyEvaluationsException e) {
            // the budget is spent: the best evaluation so far is the fit
        }
        return new Fit(best[0].costs(), best[0].figures(), best[0].objective(), evaluations);
    }
}
