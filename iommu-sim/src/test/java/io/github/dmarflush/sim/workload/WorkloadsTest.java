package io.github.dmarflush.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.pgtbl.PageTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WorkloadsTest {

    private static WorkloadConfig short2(long segment) {
        return new WorkloadConfig(2, Duration.ZERO, Duration.ofMillis(400), 1500, 11, 2L << 20, segment, 8);
    }

    @ParameterizedTest
    @EnumSource(InvalidationMode.class)
    void tcpStreamUnloadsInBatchesWithCoalescedWaits(InvalidationMode mode) throws Exception {
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withMode(mode).withQueue(3, 4);
        RunResult r;
        long entries;
        long iotlb;
        long waits;
        try (SimMachine m = new SimMachine(c)) {
            r = new TcpStream(m, short2(128 << 10)).run(ProgressListener.NONE);
            // Whole-run totals, all executed by now (the run ends with a quiesce).
            entries = m.domain().unloadedEntries();
            iotlb = m.hardware().iotlbDescriptors() - 1; // less the global one at attach
            waits = m.hardware().waitDescriptors() - 4; // less three at attach and the quiesce
        }
        assertEquals(List.of(), r.problems());
        assertTrue(r.packets() > 0);
        assertTrue(entries >= 2 * r.packets(), "two entries (header, payload) per packet");
        assertEquals(entries, iotlb, "one page-selective descriptor per entry");
        if (mode == InvalidationMode.DEFERRED) {
            // 16 entries per batch of 8 packets, coalesce 4: about one wait per 4 entries, not one per entry.
            assertTrue(waits * 2 < entries, waits + " waits for " + entries + " entries");
        } else {
            assertEquals(entries, waits, "strict: one wait per entry");
        }
        assertTrue(r.stacks().get(0).stack().frames().contains("iflib_completed_tx_reclaim"));
    }

    @Test
    void ddWithTwoMibSegmentsMapsSuperpagesAndInvalidatesWithOneDescriptor() throws Exception {
        RunResult r;
        long superpages;
        long descriptors;
        long entries;
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.FLUSHLIST))) {
            r = new DdWrite(m, short2(2L << 20)).run(ProgressListener.NONE);
            superpages = m.domain().pageTable().pagesMapped(PageTable.SHIFT_2M);
            descriptors = m.unit().iotlbDescriptorsEmitted() - 1; // less the global one at attach
            entries = m.domain().unloadedEntries();
        }
        assertEquals(List.of(), r.problems());
        assertTrue(r.ops() > 0);
        assertEquals(r.ops() * (2L << 20), r.bytes());
        assertTrue(superpages >= r.ops(), "each request mapped by a 2 MiB page: " + superpages);
        // One IOTLB descriptor (AM 9) per request, over the whole run.
        assertEquals(entries, descriptors);
        assertTrue(entries >= r.ops());
    }

    @Test
    void ddWithSmallSegmentsSplitsEachRequest() throws Exception {
        RunResult r;
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.LOCKED).withPaging(5, false))) {
            r = new DdWrite(m, short2(128 << 10)).run(ProgressListener.NONE);
        }
        assertEquals(List.of(), r.problems());
        assertTrue(r.qi().unloadedEntries() >= 16 * (r.ops() - 2), "16 segments per 2 MiB request");
    }

    @Test
    void severalUnitsAndDomainsAllCarryTraffic() throws Exception {
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withTopology(2, 2, 4);
        RunResult r;
        try (SimMachine m = new SimMachine(c)) {
            // IOTLB descriptors after attach: from here on only unloads emit them (the final
            // quiesce emits a wait descriptor alone), so a unit that carried traffic has more.
            long[] atAttach = m.units().stream().mapToLong(u -> u.hardware().iotlbDescriptors()).toArray();
            r = new TcpMaerts(m, new WorkloadConfig(4, Duration.ZERO, Duration.ofMillis(400), 512, 5))
                    .run(ProgressListener.NONE);
            for (int i = 0; i < atAttach.length; i++) {
                var hw = m.units().get(i).hardware();
                assertTrue(hw.iotlbDescriptors() > atAttach[i], hw.name() + " idle");
            }
            for (var d : m.domains()) {
                assertTrue(d.unloadedEntries() > 0, "domain " + d.domainId() + " idle");
            }
        }
        assertEquals(List.of(), r.problems());
    }

    /**
     * The seam for broken variants: a drain whose stop condition releases entries before
     * their invalidation completed (an off-by-everything "processed"). With a slow IOTLB
     * invalidation the freed IOVA is reused while the stale translation is still cached, and
     * the DMA checker reports it.
     */
    @Test
    void dmaCheckerCatchesAFlushListThatReleasesTooEarly() throws Exception {
        UnitHooks broken = new UnitHooks(UnitHooks.LIBRARY.flushList(), p -> (SeqProcessed) gseq -> true,
                UnitHooks.LIBRARY.task());
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withHooks(broken);
        c = new MachineConfig(c.strategy(), c.mode(), c.qs(), c.iotlbEntries(), c.pageTableLevels(), c.superpages(),
                new EngineTiming(50_000, 0, 0, 0, 0, 1), c.registers(), c.spinNanos(), c.batchCoalesce(), c.memoryBytes(), 1, 1, 1,
                broken);
        RunResult r;
        try (SimMachine m = new SimMachine(c)) {
            r = new TcpMaerts(m, new WorkloadConfig(2, Duration.ZERO, Duration.ofMillis(500), 1500, 9))
                    .run(ProgressListener.NONE);
        }
        assertFalse(r.clean(), "the broken variant must be caught");
        assertTrue(r.problems().stream().anyMatch(p -> p.contains("stale IOTLB translation")), r.problems().toString());
    }
}
