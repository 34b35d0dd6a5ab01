package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.CallStack;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.driver.InvalidationStacks;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Replays a trace of Linux {@code iommu:map} / {@code iommu:unmap} events ({@link TraceFormat})
 * against the first device's domain, in file order, on one CPU.
 *
 * <ul>
 *   <li>A map reserves exactly the traced IOVA range in the domain
 *       ({@code iommu_gas_map_region}), maps it to the traced physical address folded into a
 *       {@value #REGION_MB} MiB replay region of simulated memory (same offset modulo the
 *       region, so superpage alignment survives), and the device writes and the CPU checks a
 *       stamp at its start. A map over a range that is still mapped is reported and
 *       skipped.</li>
 *   <li>An unmap of {@code size} bytes unloads every mapped range that starts inside
 *       {@code [iova, iova + size)} as one batch (deferred or strict, as the machine is
 *       configured), after a DMA read at the range's start. An unmap of an IOVA that is not
 *       mapped is reported and counted, and the replay goes on: entries already queued
 *       are not affected. An unmap of 0 bytes goes to the driver as an empty entry: no
 *       descriptor, no sequence number, freed at once.</li>
 *   <li>At the end of the trace the ranges still mapped are unloaded, and the machine is
 *       checked as after any workload.</li>
 * </ul>
 */
public final class TraceReplay {

    /** Size of the replay region of physical memory, MiB. */
    static final int REGION_MB = 64;
    /** How many reported lines a result keeps. */
    private static final int MAX_NOTES = 8;

    private final SimMachine machine;
    private final List<TraceFormat.Event> events;
    private final String traceName;
    private final WorkloadConfig config;

    /**
     * @param machine a fresh machine
     * @param events the trace's events
     * @param traceName the trace file's name, for reports
     * @param config the run's parameters (seed and threads are recorded; the trace sets the work)
     */
    public TraceReplay(SimMachine machine, List<TraceFormat.Event> events, String traceName, WorkloadConfig config) {
        this.machine = Objects.requireNonNull(machine, "machine");
        this.events = List.copyOf(events);
        this.traceName = Objects.requireNonNull(traceName, "traceName");
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Replays the trace once and checks the machine.
     *
     * @return the result; {@code ops} counts events replayed, {@code unmapsNotMapped} the
     *     unmaps that found nothing mapped
     */
    public RunResult run() {
        DmarDomain domain = machine.domainOf(0);
        int rid = machine.requestId(0);
        DmarHardware hw = machine.hardwareOf(0);
        PhysicalMemory memory = machine.memory();
        long regionSize = (long) REGION_MB << 20;
        long rawRegion = memory.allocate(2 * regionSize);
        long region = (rawRegion + regionSize - 1) & -regionSize;
        CallStack stack = domain.unit().mode() == InvalidationMode.STRICT
                ? CallStack.of("iommu_qi_invalidate_sync", "iommu_domain_unload", "trace_replay_unmap")
                : CallStack.of("iommu_qi_invalidate_locked", "iommu_domain_unload", "trace_replay_unmap");
        TreeMap<Long, IommuMapEntry> mapped = new TreeMap<>(Long::compareUnsigned);
        List<String> notes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        long notMapped = 0;
        long conflicts = 0;
        long mismatched = 0;
        long integrity = 0;
        long pendingWaits = 0;
        long bytes = 0;
        byte[] stamp = new byte[16];
        byte[] probe = new byte[16];

        Workload.resetWindow(machine);
        QiCounters c0 = QiCounters.capture(machine);
        long t0 = System.nanoTime();
        for (TraceFormat.Event e : events) {
            if (!e.unmap()) {
                long start = e.iova() & ~4095L;
                long size = ((e.iova() + e.size() + 4095) & ~4095L) - start;
                IommuMapEntry entry = domain.allocateAt(start, size);
                if (entry == null && size > 0 && !overlapsMapped(mapped, start, size)) {
                    // The traced kernel had freed this range; here it is still waiting for its
                    // invalidation on the flush list. Wait for it, as the allocator would have.
                    domain.unit().quiesce();
                    pendingWaits++;
                    entry = domain.allocateAt(start, size);
                }
                if (entry == null) {
                    conflicts++;
                    note(notes, String.format("%s:%d: map of [0x%x, 0x%x) over a range that is mapped or outside "
                            + "the domain; skipped", traceName, e.line(), e.iova(), e.iova() + e.size()));
                    continue;
                }
                if (size > 0) {
                    long pa = region + ((e.paddr() & ~4095L) & (regionSize - 1));
                    domain.pageTable().map(start, pa, size);
                    int n = (int) Math.min(stamp.length, e.size());
                    for (int i = 0; i < n; i++) {
                        stamp[i] = (byte) (e.line() * 31 + i);
                    }
                    DmaFault f = hw.dmaWrite(rid, e.iova(), stamp, 0, n);
                    if (f != null) {
                        problems.add(traceName + ":" + e.line() + ": " + f);
                    } else {
                        long at = pa + (e.iova() - start);
                        for (int i = 0; i < n; i++) {
                            if (memory.contains(at + i, 1) && memory.read(at + i) != stamp[i]) {
                                integrity++;
                                break;
                            }
                        }
                        bytes += n;
                    }
                }
                mapped.put(start, entry);
                continue;
            }
            if (e.size() == 0) {
                // Nothing to unmap: an empty entry through the driver, which queues nothing.
                domain.unload(List.of(domain.allocateAt(e.iova() & ~4095L, 0)), true, stack);
                continue;
            }
            long end = e.iova() + e.size();
            List<IommuMapEntry> batch = new ArrayList<>();
            Map.Entry<Long, IommuMapEntry> below = mapped.floorEntry(e.iova());
            if (below != null && below.getKey() != (e.iova() & ~4095L)
                    && Long.compareUnsigned(below.getValue().end(), e.iova()) > 0) {
                mismatched++;
                note(notes, String.format("%s:%d: unmap at 0x%x starts inside the range mapped at 0x%x; "
                        + "unloading that whole range", traceName, e.line(), e.iova(), below.getKey()));
                batch.add(below.getValue());
            }
            for (Map.Entry<Long, IommuMapEntry> m : mapped.subMap(e.iova() & ~4095L, true, end, false).entrySet()) {
                batch.add(m.getValue());
            }
            if (batch.isEmpty()) {
                notMapped++;
                note(notes, String.format("%s:%d: unmap of IOVA 0x%x (%d bytes) that is not mapped; ignored",
                        traceName, e.line(), e.iova(), e.size()));
                continue;
            }
            IommuMapEntry lastEntry = batch.get(batch.size() - 1);
            if (Long.compareUnsigned(lastEntry.end(), end) > 0 && lastEntry.size() > 0
                    && Long.compareUnsigned(lastEntry.end() - end, 4096) >= 0) {
                mismatched++;
                note(notes, String.format("%s:%d: unmap of [0x%x, 0x%x) covers only part of [0x%x, 0x%x); "
                        + "unloading the whole range", traceName, e.line(), e.iova(), end, lastEntry.start(),
                        lastEntry.end()));
            }
            for (IommuMapEntry x : batch) {
                if (x.size() > 0) {
                    DmaFault f = hw.dmaRead(rid, x.start(), probe, 0, (int) Math.min(probe.length, x.size()));
                    if (f != null) {
                        problems.add(traceName + ":" + e.line() + ": " + f);
                    }
                }
                mapped.remove(x.start());
            }
            domain.unload(batch, true, stack);
        }
        long t1 = System.nanoTime();
        QiCounters qi = QiCounters.capture(machine).minus(c0);
        List<LockSiteSample> locks = Workload.sampleLocks(machine);
        List<InvalidationStacks.Row> stacks = Workload.sampleStacks(machine);

        if (pendingWaits > 0) {
            notes.add(pendingWaits + " maps reused a range whose invalidation was still pending and waited for it");
        }
        if (!mapped.isEmpty()) {
            notes.add(mapped.size() + " ranges still mapped at the end of the trace were unloaded");
            domain.unload(new ArrayList<>(mapped.values()), true, stack);
            mapped.clear();
        }
        if (notMapped > MAX_NOTES || conflicts + mismatched + notMapped > MAX_NOTES) {
            notes.add(String.format("in all: %d unmaps of unmapped IOVAs, %d conflicting maps, %d partial unmaps",
                    notMapped, conflicts, mismatched));
        }
        if (integrity > 0) {
            problems.add(integrity + " mapped ranges did not receive their stamp");
        }
        Workload.endOfRunChecks(machine, problems, notes);
        return new RunResult("replay " + traceName, machine.config(), config, Math.max(1, t1 - t0), events.size(),
                "events", bytes, locks, qi, stacks, integrity, notMapped, List.copyOf(notes), List.copyOf(problems), ClockInfo.host());
    }

    private static boolean overlapsMapped(TreeMap<Long, IommuMapEntry> mapped, long start, long size) {
        Map.Entry<Long, IommuMapEntry> e = mapped.floorEntry(start + size - 1);
        return e != null && Long.compareUnsigned(e.getValue().end(), start) > 0;
    }

    private static void note(List<String> notes, String s) {
        if (notes.size() < MAX_NOTES) {
            notes.add(s);
        }
    }
}
