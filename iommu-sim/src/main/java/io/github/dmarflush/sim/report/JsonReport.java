package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.driver.InvalidationStacks;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.QiCounters;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The machine-readable report: one JSON document with every run of an invocation and, when
 * both strategies ran, the comparison. Rates are per second of the measured window; times
 * are in ns. The layout is documented by example in the README.
 */
public final class JsonReport {

    private JsonReport() {
    }

    /**
     * @param runs the runs, in the order they ran
     * @param command the command line, for the record
     * @return the document, one line, no trailing newline
     */
    public static String format(List<RunResult> runs, String command) {
        Json j = new Json().beginObject();
        j.field("tool", "iommu-sim").field("command", command);
        j.name("runs").beginArray();
        for (RunResult r : runs) {
            run(j, r);
        }
        j.endArray();
        RunResult locked = find(runs, "locked");
        RunResult flush = find(runs, "flushlist");
        if (locked != null && flush != null) {
            double sl = locked.spinEventsPerSecond("dmarhw");
            double sf = flush.spinEventsPerSecond("dmarhw");
            j.name("comparison").beginObject()
                    .field("dmarhwSpinPerSecLocked", sl)
                    .field("dmarhwSpinPerSecFlushlist", sf)
                    .field("spinRatioLockedOverFlushlist", sf == 0 ? Double.NaN : sl / sf)
                    .field("throughputRatioFlushlistOverLocked", flush.mbitPerSecond() / locked.mbitPerSecond())
                    .endObject();
        }
        j.field("clean", runs.stream().allMatch(RunResult::clean));
        return j.endObject().toString();
    }

    private static RunResult find(List<RunResult> runs, String label) {
        return runs.stream().filter(r -> r.label().equals(label)).findFirst().orElse(null);
    }

    private static void run(Json j, RunResult r) {
        double s = r.seconds();
        MachineConfig m = r.machine();
        QiCounters q = r.qi();
        j.beginObject();
        j.field("workload", r.workload()).field("label", r.label())
                .field("strategy", m.strategy().cliName()).field("mode", m.mode().cliName());
        j.name("clock").beginObject()
                .field("kind", r.clock().virtual() ? "virtual" : "real")
                .field("cpus", r.clock().cpus()).field("streams", r.clock().streams())
                .field("costModel", r.clock().costs())
                .endObject();
        j.name("machine").beginObject()
                .field("units", m.units()).field("domainsPerUnit", m.domainsPerUnit()).field("devices", m.devices())
                .field("queueSlots", 256L << m.qs()).field("batchCoalesce", m.batchCoalesce())
                .field("pageTableLevels", m.pageTableLevels()).field("superpages", m.superpages())
                .field("iotlbEntries", m.iotlbEntries());
        if (!r.clock().virtual()) { // in virtual time these times come from the cost model
            j.field("spinNanos", m.spinNanos())
                    .field("engine", m.timing().toString())
                    .field("mmioReadNanos", m.registers().readNanos())
                    .field("mmioWriteNanos", m.registers().writeNanos());
        }
        j.endObject();
        j.name("config").beginObject()
                .field("threads", r.config().threads()).field("seed", r.config().seed())
                .field("warmupSeconds", r.config().warmup().toMillis() / 1e3)
                .field("packetSize", r.config().packetSize()).field("requestSize", r.config().requestSize())
                .field("segmentSize", r.config().segmentSize()).field("txBatch", r.config().txBatch())
                .endObject();
        j.field("seconds", s).field("ops", r.ops()).field("opUnit", r.opUnit()).field("bytes", r.bytes())
                .field("opsPerSecond", r.opsPerSecond()).field("mbitPerSecond", r.mbitPerSecond());
        j.name("qi").beginObject()
                .field("iotlbDescriptors", q.iotlbDescriptors()).field("iotlbDescriptorsPerSec", q.iotlbDescriptors() / s)
                .field("waitDescriptors", q.waitDescriptors()).field("waitDescriptorsPerSec", q.waitDescriptors() / s)
                .field("contextDescriptors", q.contextDescriptors()).field("iecDescriptors", q.iecDescriptors())
                .field("interrupts", q.interrupts()).field("interruptsPerSec", q.interrupts() / s)
                .field("iwcSets", q.iwcSets()).field("iwcClears", q.iwcClears())
                .field("taskRuns", q.taskRuns())
                .field("releasedFirstDrain", q.releasedFirstDrain()).field("releasedSecondDrain", q.releasedSecondDrain())
                .field("queueFullEvents", q.queueFull()).field("unloadedEntries", q.unloadedEntries()).field("rangesFreed", q.rangesFreed())
                .field("emptyUnloads", q.emptyUnloads()).field("seqWraps", q.seqWraps())
                .field("dmaFaults", q.dmaFaults()).field("queueErrors", q.queueErrors())
                .endObject();
        j.name("locks").beginArray();
        for (LockSiteSample l : r.locks()) {
            j.beginObject().field("lock", l.lock()).field("caller", l.caller())
                    .field("acquisitions", l.acquisitions())
                    .field("spinEvents", l.spinEvents()).field("spinEventsPerSec", l.spinEvents() / s)
                    .field("spinNanos", l.spinNanos())
                    .field("blockEvents", l.blockEvents()).field("blockEventsPerSec", l.blockEvents() / s)
                    .field("blockNanos", l.blockNanos());
            percentiles(j, "spinNanosPercentiles", l.spinHistogram());
            percentiles(j, "blockNanosPercentiles", l.blockHistogram());
            j.endObject();
        }
        j.endArray();
        j.name("stacks").beginArray();
        for (InvalidationStacks.Row row : r.stacks()) {
            j.beginObject().name("frames").beginArray();
            for (String f : row.stack().frames()) {
                j.value(f);
            }
            j.endArray().field("count", row.count()).endObject();
        }
        j.endArray();
        j.field("integrityErrors", r.integrityErrors()).field("unmapsNotMapped", r.unmapsNotMapped());
        j.name("notes").beginArray();
        r.notes().forEach(j::value);
        j.endArray();
        j.name("problems").beginArray();
        r.problems().forEach(j::value);
        j.endArray();
        j.field("clean", r.clean());
        j.endObject();
    }

    private static void percentiles(Json j, String name, Histogram h) {
        j.name(name).beginObject();
        if (h.getTotalCount() > 0) {
            j.field("p50", h.getValueAtPercentile(50)).field("p90", h.getValueAtPercentile(90))
                    .field("p99", h.getValueAtPercentile(99)).field("max", h.getMaxValue());
        }
        j.endObject();
    }
}
