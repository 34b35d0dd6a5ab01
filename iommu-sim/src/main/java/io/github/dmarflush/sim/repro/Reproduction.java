package io.github.dmarflush.sim.repro;

import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * FreeBSD's measured states run by the model: each state's result beside FreeBSD's
 * figures, and the headline figures (throughput and spin events per second of each state,
 * and the B-to-C change) as FreeBSD's value, the model's, and their ratio.
 */
public final class Reproduction {

    /**
     * A headline figure.
     *
     * @param name what it is
     * @param freebsd FreeBSD's value (the seed)
     * @param model the model's value
     */
    public record Headline(String name, double freebsd, double model) {
        /** @return model / FreeBSD */
        public double ratio() {
            return model / freebsd;
        }
    }

    private final FreeBsdReference reference;
    private final CostModel costs;
    private final ModelState.Setup setup;
    private final Map<ModelState, RunResult> results = new LinkedHashMap<>();

    /**
     * @param reference FreeBSD's data
     * @param costs the cost model
     * @param setup CPUs, window, seed
     */
    public Reproduction(FreeBsdReference reference, CostModel costs, ModelState.Setup setup) {
        this.reference = Objects.requireNonNull(reference, "reference");
        this.costs = Objects.requireNonNull(costs, "costs");
        this.setup = Objects.requireNonNull(setup, "setup");
    }

    /**
     * Runs the states, in order.
     *
     * @param states which states
     * @param done told each state and its result as it finishes
     */
    public void run(List<ModelState> states, BiConsumer<ModelState, RunResult> done) {
        for (ModelState s : states) {
            RunResult r = s.run(costs, setup);
            results.put(s, r);
            done.accept(s, r);
        }
    }

    /** @return the runs so far, by state */
    public Map<ModelState, RunResult> results() {
        return Map.copyOf(results);
    }

    /** @return FreeBSD's data */
    public FreeBsdReference reference() {
        return reference;
    }

    /** @return the cost model */
    public CostModel costs() {
        return costs;
    }

    /** @return CPUs, window, seed */
    public ModelState.Setup setup() {
        return setup;
    }

    /**
     * @param r a run
     * @return its spin events per second, all locks and sites
     */
    public static double spinPerSecond(RunResult r) {
        return r.locks().stream().mapToLong(LockSiteSample::spinEvents).sum() / r.seconds();
    }

    /**
     * @param r a run
     * @return its block events per second, all locks and sites
     */
    public static double blockPerSecond(RunResult r) {
        return r.locks().stream().mapToLong(LockSiteSample::blockEvents).sum() / r.seconds();
    }

    /** @return the headline figures of the states run, in a fixed order */
    public List<Headline> headlines() {
        List<Headline> h = new ArrayList<>();
        for (ModelState s : ModelState.values()) {
            RunResult r = results.get(s);
            if (r == null) {
                continue;
            }
            FreeBsdReference.State f = reference.state(s.name());
            h.add(new Headline(s + " throughput, Mbit/s", f.mbitPerSecond(), Observables.netperfMbps(r, costs)));
            h.add(new Headline(s + " adaptive spin events/s", f.spinPerSecond(), spinPerSecond(r)));
        }
        RunResult b = results.get(ModelState.B);
        RunResult c = results.get(ModelState.C);
        if (b != null && c != null) {
            FreeBsdReference.State fb = reference.state("B");
            FreeBsdReference.State fc = reference.state("C");
            h.add(new Headline("B/C spin events/s (reduction)", fb.spinPerSecond() / fc.spinPerSecond(),
                    spinPerSecond(b) / spinPerSecond(c)));
            h.add(new Headline("C/B throughput (gain)", fc.mbitPerSecond() / fb.mbitPerSecond(),
                    Observables.netperfMbps(c, costs) / Observables.netperfMbps(b, costs)));
        }
        return h;
    }
}
