package io.github.dmarflush.sim.virt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.report.RunReport;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class VirtualTcpMaertsTest {

    static CostModel testCosts(String name) throws Exception {
        try (InputStream in = VirtualTcpMaertsTest.class.getResourceAsStream(name)) {
            return CostModel.parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    static RunResult run(CostModel costs, MachineConfig mc, int cpus, int streams, Duration warmup, Duration window,
            long seed) {
        VirtualClock clock = new VirtualClock(costs, cpus, seed);
        try (SimMachine m = new SimMachine(mc, clock)) {
            return new VirtualTcpMaerts(m, new WorkloadConfig(1, warmup, window, 1500, seed), streams, false).run();
        }
    }

    /**
     * Worked out by hand: each packet takes the receive task 5 x 1000 ns and the QI task none.
     * The first frame lands at 1231 ns (1538 bytes at 10 Gbit/s is 1230.4 ns); the task takes
     * it alone (done at 6231), then the 4 that arrived meanwhile (done at 26231); from then on
     * 16 frames are always waiting, so a batch of 16 ends every 80 us, at 26231 + 80000 j. In
     * the window (1 ms, 9 ms] that is j = 13..112: 100 batches, 1600 packets.
     *
     * <p>One lock is contended, once per batch: the last unload's invalidation completes at the
     * instant the receive task takes {@code iodom} for its first refill, so the QI task's free of
     * that entry spins on {@code iodom} while the receive task holds it (1000 ns). Spinning with
     * 25 ns pauses in rounds of 2, 4, 8, 16, 32, it looks at 50, 150, 350, 750 and 1550 ns, and
     * takes the lock at its look at 1550 ns: 100 spin events of 1550 ns. Nothing else waits.
     */
    @ParameterizedTest
    @EnumSource(value = FlushStrategy.class, names = {"LOCKED", "FLUSHLIST"})
    void withAFreeQiTaskTheThroughputIsTheReceiveTasksOwn(FlushStrategy s) throws Exception {
        RunResult r = run(testCosts("free-qi-task.costs"), MachineConfig.defaults(s), 2, 1, Duration.ofMillis(1),
                Duration.ofMillis(8), 3);
        assertTrue(r.clean(), r.problems().toString());
        assertEquals(1600, r.ops());
        assertEquals(1600L * 1500, r.bytes());
        for (LockSiteSample l : r.locks()) {
            if (l.lock().equals("iodom") && l.caller().equals(QiTaskThread.SITE_FREE)) {
                assertEquals(100, l.spinEvents());
                assertEquals(100 * 1550, l.spinNanos());
                assertEquals(0, l.blockEvents());
            } else {
                assertEquals(0, l.spinEvents() + l.blockEvents(), l.lock() + " " + l.caller());
            }
        }
        assertEquals(1600, r.qi().unloadedEntries());
        assertEquals(1600, r.qi().waitDescriptors());
        assertEquals(1600, r.qi().rangesFreed());
    }

    @Test
    void theSameInputsPrintTheSameReport() {
        CostModel c = CostModel.builtIn();
        MachineConfig mc = MachineConfig.defaults(FlushStrategy.LOCKED);
        String a = RunReport.format(run(c, mc, 4, 4, Duration.ofMillis(5), Duration.ofMillis(20), 11));
        String b = RunReport.format(run(c, mc, 4, 4, Duration.ofMillis(5), Duration.ofMillis(20), 11));
        assertEquals(a, b);
        String other = RunReport.format(run(c, mc, 4, 4, Duration.ofMillis(5), Duration.ofMillis(20), 12));
        assertNotEquals(a, other, "the seed should move the varied times");
    }

    @ParameterizedTest
    @EnumSource(value = FlushStrategy.class, names = {"LOCKED", "FLUSHLIST"})
    void bothStrategiesPassTheChecksUnderContention(FlushStrategy s) {
        RunResult r = run(CostModel.builtIn(), MachineConfig.defaults(s), 4, 4, Duration.ofMillis(5),
                Duration.ofMillis(20), 5);
        assertTrue(r.clean(), r.problems().toString());
        assertTrue(r.ops() > 1000, "packets " + r.ops());
        assertEquals(r.ops() * 1500, r.bytes());
        assertTrue(r.spinEventsPerSecond("dmarhw") + r.spinEventsPerSecond("iodom") > 0,
                "four receive streams on one unit should contend");
    }

    /**
     * The DMA checker works in virtual time: a drain that releases the entry one past the
     * status word (seeded bug M3) lets an IOVA be reused while the IOTLB still holds its old
     * translation, and the NIC's next write through it faults. The checker sees the bug when the
     * NIC writes into a reused IOVA before the invalidation completes: a short ring (16 buffers,
     * so a reloaded buffer is written soon) and a slow engine that works on one descriptor at a
     * time (10 us per IOTLB invalidation).
     * The library's own drain passes the same run.
     */
    @ParameterizedTest
    @EnumSource(value = FlushStrategy.class, names = {"LOCKED", "FLUSHLIST"})
    void theDmaCheckerCatchesAReleaseBeforeTheInvalidationCompletes(FlushStrategy s) {
        CostModel exposed = CostModel.builtIn().with(Cost.RX_RING_SLOTS, 16, "test")
                .with(Cost.QI_IOTLB_NS, 10_000, "test").with(Cost.QI_OCCUPANCY_NS, 10_000, "test");
        RunResult good = run(exposed, MachineConfig.defaults(s), 2, 1, Duration.ofMillis(2), Duration.ofMillis(20), 5);
        assertTrue(good.clean(), good.problems().toString());
        UnitHooks onePast = new UnitHooks(UnitHooks.LIBRARY.flushList(),
                p -> gseq -> p.processed(GenSeq.of(GenSeq.gen(gseq), GenSeq.seq(gseq) - 1)),
                UnitHooks.LIBRARY.task());
        MachineConfig mc = MachineConfig.defaults(s).withHooks(onePast);
        RunResult r = run(exposed, mc, 2, 1, Duration.ofMillis(2), Duration.ofMillis(20), 5);
        assertFalse(r.clean(), "a release one past the status word should be caught");
        assertTrue(r.qi().dmaFaults() > 0, "DMA faults " + r.qi().dmaFaults());
        assertTrue(r.problems().stream().anyMatch(p -> p.contains("stale IOTLB translation")), r.problems().toString());
    }
}
