package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.workload.RunResult;
import java.util.Locale;

/** The text report of one run: headline figures, then the lockstat tables. */
public final class RunReport {

    private RunReport() {
    }

    /**
     * @param r a run's result
     * @return the report, lines ending in {@code \n}
     */
    public static String format(RunResult r) {
        double s = r.seconds();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "== %s, strategy %s: %s ==%n", r.workload(), r.strategy().cliName(),
                r.strategy().description()));
        sb.append(String.format(Locale.ROOT,
                "threads %d, packet %d B, seed %d, warmup %.1f s, measured %.3f s%n",
                r.config().threads(), r.config().packetSize(), r.config().seed(),
                r.config().warmup().toMillis() / 1e3, s));
        sb.append(String.format(Locale.ROOT, "  throughput            %12.1f Mbit/s of simulated DMA%n", r.mbitPerSecond()));
        sb.append(String.format(Locale.ROOT, "  map+unmap             %12.0f ops/s%n", r.mapUnmapPerSecond()));
        sb.append(String.format(Locale.ROOT, "  dmarhw spin events    %12.0f events/s%n", r.spinEventsPerSecond("dmarhw")));
        sb.append(String.format(Locale.ROOT, "  dmarhw block events   %12.0f events/s%n", r.blockEventsPerSecond("dmarhw")));
        sb.append(String.format(Locale.ROOT, "  iodom spin/block      %12.0f / %.0f events/s%n",
                r.spinEventsPerSecond("iodom"), r.blockEventsPerSecond("iodom")));
        sb.append(String.format(Locale.ROOT, "  IOTLB inv descriptors %12.0f /s, wait descriptors %.0f /s%n",
                r.iotlbDescriptors() / s, r.waitDescriptors() / s));
        sb.append(String.format(Locale.ROOT, "  interrupts            %12.0f /s (IWC 0->1 %.0f /s), QI task runs %.0f /s%n",
                r.interrupts() / s, r.iwcSets() / s, r.taskRuns() / s));
        sb.append(String.format(Locale.ROOT,
                "  released by 1st drain %12d, by 2nd drain (after IWC clear) %d; queue-full events %d%n",
                r.releasedFirstDrain(), r.releasedSecondDrain(), r.queueFull()));
        sb.append(String.format(Locale.ROOT, "  DMA faults %d, payload errors %d, end-of-run checks: %s%n",
                r.dmaFaults(), r.integrityErrors(), r.problems().isEmpty() ? "passed" : "FAILED"));
        for (String p : r.problems()) {
            sb.append("  FAILED: ").append(p).append('\n');
        }
        sb.append('\n');
        sb.append(LockstatTable.format(LockstatTable.Kind.SPIN, r.locks(), s)).append('\n');
        sb.append(LockstatTable.format(LockstatTable.Kind.BLOCK, r.locks(), s));
        return sb.toString();
    }

    /**
     * The one-line comparison of a baseline run and a flush-list run.
     *
     * @param locked the locked-baseline result
     * @param flush the flush-list result
     * @return {@code comparison: ...}, without a line end
     */
    public static String comparison(RunResult locked, RunResult flush) {
        double spinL = locked.spinEventsPerSecond("dmarhw");
        double spinF = flush.spinEventsPerSecond("dmarhw");
        String spinRatio = spinF == 0 ? (spinL == 0 ? "1.00x (no spin events)" : "inf (no spin events with flushlist)")
                : String.format(Locale.ROOT, "%.2fx", spinL / spinF);
        double tput = flush.mbitPerSecond() / locked.mbitPerSecond();
        return String.format(Locale.ROOT,
                "comparison: dmarhw spin events/s locked/flushlist = %s (%.0f vs %.0f); "
                        + "throughput flushlist/locked = %.3fx (%.1f vs %.1f Mbit/s, %+.1f%%)",
                spinRatio, spinL, spinF, tput, flush.mbitPerSecond(), locked.mbitPerSecond(), (tput - 1) * 100);
    }
}
