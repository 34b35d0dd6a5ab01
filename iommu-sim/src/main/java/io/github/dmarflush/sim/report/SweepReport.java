package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.workload.RunResult;
import java.util.List;
import java.util.Locale;

/**
 * The table of a CPU sweep in virtual time: for each CPU count and strategy, throughput and
 * the adaptive-mutex spin and block events per second of each lock.
 */
public final class SweepReport {

    private SweepReport() {
    }

    /**
     * @param runs the sweep's results, CPU count by CPU count
     * @return the table, lines ending in {@code \n}
     */
    public static String format(List<RunResult> runs) {
        StringBuilder sb = new StringBuilder();
        RunResult first = runs.get(0);
        sb.append(String.format(Locale.ROOT,
                "== %s sweep in virtual time: cost model %s, packet %d B, seed %d, warmup %.3f s, window %.3f s ==%n",
                first.workload(), first.clock().costs(), first.config().packetSize(), first.config().seed(),
                first.config().warmup().toNanos() / 1e9, first.seconds()));
        sb.append(String.format(Locale.ROOT, "%5s %7s %-10s %10s %11s %13s %14s %12s %13s %7s %7s%n", "CPUs", "streams",
                "strategy", "Mbit/s", "packets/s", "dmarhw spin/s", "dmarhw block/s", "iodom spin/s", "iodom block/s",
                "freed", "checks"));
        for (RunResult r : runs) {
            sb.append(String.format(Locale.ROOT, "%5d %7d %-10s %10.1f %11.0f %13.0f %14.0f %12.0f %13.0f %6.0f%% %7s%n",
                    r.clock().cpus(), r.clock().streams(), r.label(), r.mbitPerSecond(), r.opsPerSecond(),
                    r.spinEventsPerSecond("dmarhw"), r.blockEventsPerSecond("dmarhw"), r.spinEventsPerSecond("iodom"),
                    r.blockEventsPerSecond("iodom"), RunReport.freedPercent(r), r.clean() ? "passed" : "FAILED"));
        }
        sb.append("freed: IOVA ranges the QI tasks gave back in the window, as a share of the entries unloaded in it\n");
        for (RunResult r : runs) {
            for (String p : r.problems()) {
                sb.append(String.format(Locale.ROOT, "  FAILED (%d CPUs, %s): %s%n", r.clock().cpus(), r.label(), p));
            }
        }
        return sb.toString();
    }
}
