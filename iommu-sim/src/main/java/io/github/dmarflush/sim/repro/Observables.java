package io.github.dmarflush.sim.repro;

import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The figures of a state that the model is compared on, FreeBSD's beside the model's: the
 * throughput as netperf counts it, and for each published row that the model has a call site
 * for, its events per second and mean ns per event.
 */
public final class Observables {

    /**
     * One compared figure.
     *
     * @param name what it is, e.g. {@code dmarhw iommu_domain_unload+0x1a8 spin/s}
     * @param freebsd FreeBSD's value
     * @param model the model's value
     */
    public record Figure(String name, double freebsd, double model) {

        /** @return model / FreeBSD (NaN if FreeBSD's is 0) */
        public double ratio() {
            return freebsd == 0 ? Double.NaN : model / freebsd;
        }

        /**
         * The fit's residual: {@code ln((model + e) / (freebsd + e))} with {@code e} 1% of
         * FreeBSD's value, so that a figure the model does not produce at all costs a finite
         * {@code ln(0.0099)}.
         *
         * @return the residual
         */
        public double logError() {
            double e = 0.01 * Math.abs(freebsd);
            return Math.log((model + e) / (freebsd + e));
        }
    }

    private Observables() {
    }

    /**
     * @param r a model run of the state
     * @param costs the cost model it ran with (for the TCP payload per packet)
     * @return netperf's Mbit/s for the run: packets x {@code tcp.payload_bytes} x 8 per second
     */
    public static double netperfMbps(RunResult r, CostModel costs) {
        return r.opsPerSecond() * costs.get(Cost.TCP_PAYLOAD_BYTES) * 8 / 1e6;
    }

    /**
     * The figures of {@code state} with published rows, FreeBSD's beside the model's.
     *
     * @param state the reference state (with rows)
     * @param r the model's run of it
     * @param costs the cost model
     * @param throughput whether to include the throughput
     * @param rows which spin rows to include (of those with a model site)
     * @return the throughput first if asked, then per row: events/s and nsec
     */
    public static List<Figure> compare(FreeBsdReference.State state, RunResult r, CostModel costs, boolean throughput,
            Predicate<FreeBsdReference.Row> rows) {
        List<Figure> out = new ArrayList<>();
        if (throughput) {
            out.add(new Figure("throughput Mbit/s", state.mbitPerSecond(), netperfMbps(r, costs)));
        }
        double s = r.seconds();
        for (FreeBsdReference.Row row : state.rows()) {
            if (!row.spin() || row.modelSite() == null || !rows.test(row)) {
                continue;
            }
            LockSiteSample m = find(r, row.lock(), row.modelSite());
            long events = m == null ? 0 : m.spinEvents();
            out.add(new Figure(row.lock() + " " + row.caller() + " spin/s", state.perSecond(row), events / s));
            out.add(new Figure(row.lock() + " " + row.caller() + " nsec", row.nsec(),
                    events == 0 ? 0 : (double) m.spinNanos() / events));
        }
        return out;
    }

    /**
     * @param r a run
     * @param lock a lock name
     * @param site a model call site
     * @return the run's sample of it, or null
     */
    public static LockSiteSample find(RunResult r, String lock, String site) {
        for (LockSiteSample l : r.locks()) {
            if (l.lock().equals(lock) && l.caller().equals(site)) {
                return l;
            }
        }
        return null;
    }
}
