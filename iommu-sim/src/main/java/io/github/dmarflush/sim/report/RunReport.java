package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.workload.QiCounters;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.Locale;

/**
 * The text report of one run: headline figures, the queued-invalidation counters, the
 * lockstat tables, and the stack aggregation of invalidation requests.
 */
public final class RunReport {

    private RunReport() {
    }

    /**
     * @param r a run's result
     * @return what the run's label means, one line
     */
    static String describe(RunResult r) {
        MachineConfig m = r.machine();
        return m.mode() == InvalidationMode.STRICT
                ? "strict: each unload waits for its invalidation (iommu_qi_invalidate_sync), then frees"
                : m.strategy().description();
    }

    /**
     * @param r a run's result
     * @return the report, lines ending in {@code \n}
     */
    public static String format(RunResult r) {
        double s = r.seconds();
        MachineConfig m = r.machine();
        QiCounters q = r.qi();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "== %s, strategy %s: %s ==%n", r.workload(), r.label(), describe(r)));
        String size = switch (r.workload()) {
            case "dd" -> String.format(Locale.ROOT, "request %d KiB in segments of %d KiB",
                    r.config().requestSize() >> 10, r.config().segmentSize() >> 10);
            case "TCP_STREAM" -> String.format(Locale.ROOT, "packet %d B + %d B header, tx batch %d",
                    r.config().packetSize(), 66, r.config().txBatch());
            case "TCP_MAERTS" -> String.format(Locale.ROOT, "packet %d B", r.config().packetSize());
            default -> "trace";
        };
        if (r.clock().virtual()) {
            sb.append(String.format(Locale.ROOT, "%s; %s, seed %d, warmup %.3f s, measured %.3f s%n",
                    r.clock().describe(), size, r.config().seed(), r.config().warmup().toNanos() / 1e9, s));
            sb.append(String.format(Locale.ROOT,
                    "machine: %d unit(s) x %d domain(s), %d device(s), %d-level tables%s, queue %d slots, "
                            + "batch coalesce %d, IOTLB %d; CPU, lock and engine times from the cost model%n",
                    m.units(), m.domainsPerUnit(), m.devices(), m.pageTableLevels(), m.superpages() ? " + superpages" : "",
                    256 << m.qs(), m.batchCoalesce(), m.iotlbEntries()));
        } else {
            if (r.workload().startsWith("replay")) {
                sb.append(String.format(Locale.ROOT, "%d trace events replayed in order on one CPU, no warm-up, %.3f s%n",
                        r.ops(), s));
            } else {
                sb.append(String.format(Locale.ROOT,
                        "threads %d, %s, seed %d, warmup %.1f s, measured %.3f s%n",
                        r.config().threads(), size, r.config().seed(), r.config().warmup().toMillis() / 1e3, s));
            }
            sb.append(String.format(Locale.ROOT,
                    "machine: %d unit(s) x %d domain(s), %d device(s), %d-level tables%s, queue %d slots, "
                            + "batch coalesce %d, IOTLB %d, engine %s, MMIO %s%n",
                    m.units(), m.domainsPerUnit(), m.devices(), m.pageTableLevels(), m.superpages() ? " + superpages" : "",
                    256 << m.qs(), m.batchCoalesce(), m.iotlbEntries(), m.timing(), m.registers()));
        }
        sb.append(String.format(Locale.ROOT, "  throughput            %12.1f Mbit/s of simulated DMA%n", r.mbitPerSecond()));
        sb.append(String.format(Locale.ROOT, "  map+unmap             %12.0f %s/s%n", r.opsPerSecond(), r.opUnit()));
        sb.append(String.format(Locale.ROOT, "  dmarhw spin events    %12.0f events/s%n", r.spinEventsPerSecond("dmarhw")));
        sb.append(String.format(Locale.ROOT, "  dmarhw block events   %12.0f events/s%n", r.blockEventsPerSecond("dmarhw")));
        sb.append(String.format(Locale.ROOT, "  iodom spin/block      %12.0f / %.0f events/s%n",
                r.spinEventsPerSecond("iodom"), r.blockEventsPerSecond("iodom")));
        sb.append(String.format(Locale.ROOT, "  IOTLB inv descriptors %12.0f /s, wait descriptors %.0f /s (ctx %d, iec %d)%n",
                q.iotlbDescriptors() / s, q.waitDescriptors() / s, q.contextDescriptors(), q.iecDescriptors()));
        sb.append(String.format(Locale.ROOT,
                "  interrupts            %12.0f /s; IWC sets %d (%.0f /s), IWC clears %d; QI task runs %.0f /s%n",
                q.interrupts() / s, q.iwcSets(), q.iwcSets() / s, q.iwcClears(), q.taskRuns() / s));
        sb.append(String.format(Locale.ROOT,
                "  released by 1st drain %12d, by 2nd drain (after IWC clear) %d; queue-full events %d%n",
                q.releasedFirstDrain(), q.releasedSecondDrain(), q.queueFull()));
        sb.append(String.format(Locale.ROOT, "  entries unloaded      %12d, IOVA ranges freed %d, empty unloads %d, seq wraps %d%n",
                q.unloadedEntries(), q.rangesFreed(), q.emptyUnloads(), q.seqWraps()));
        if (r.unmapsNotMapped() > 0) {
            sb.append(String.format(Locale.ROOT, "  unmaps of IOVAs not mapped %d (reported, run continued)%n",
                    r.unmapsNotMapped()));
        }
        sb.append(String.format(Locale.ROOT, "  DMA faults %d, payload errors %d, end-of-run checks: %s%n",
                q.dmaFaults(), r.integrityErrors(), r.problems().isEmpty() ? "passed" : "FAILED"));
        for (String n : r.notes()) {
            sb.append("  note: ").append(n).append('\n');
        }
        for (String p : r.problems()) {
            sb.append("  FAILED: ").append(p).append('\n');
        }
        sb.append('\n');
        sb.append(LockstatTable.format(LockstatTable.Kind.SPIN, r.locks(), s)).append('\n');
        sb.append(LockstatTable.format(LockstatTable.Kind.BLOCK, r.locks(), s)).append('\n');
        sb.append(StackReport.format(r.stacks(), s));
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
                        + "throughput flushlist/locked = %.3fx (%.1f vs %.1f Mbit/s, %+.1f%%); "
                        + "IOVA ranges freed per entry unloaded: locked %.0f%%, flushlist %.0f%%",
                spinRatio, spinL, spinF, tput, flush.mbitPerSecond(), locked.mbitPerSecond(), (tput - 1) * 100,
                freedPercent(locked), freedPercent(flush));
    }

    /**
     * @param r a run
     * @return IOVA ranges freed in the window per 100 entries unloaded in it (below 100: the
     *     QI task falls behind and the flush list grows)
     */
    public static double freedPercent(RunResult r) {
        long unloaded = r.qi().unloadedEntries();
        return unloaded == 0 ? 100 : 100.0 * r.qi().rangesFreed() / unloaded;
    }
}
