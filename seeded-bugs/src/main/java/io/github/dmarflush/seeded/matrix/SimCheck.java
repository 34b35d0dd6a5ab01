package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.seeded.variants.QiTaskM8;
import io.github.dmarflush.seeded.Variant;
import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.workload.ProgressListener;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.TcpMaerts;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.time.Duration;
import java.util.List;

/**
 * The matrix's "sim" column: iommu-sim's DMA checker on a short TCP_MAERTS run (2 CPU
 * threads, 1 s) of a machine whose unit is built, through the {@link UnitHooks} seam, with the
 * variant's flush list or QI task. The IOTLB invalidation takes 50 µs of simulated hardware
 * time, so that an IOVA range released before its invalidation completed is reused while the
 * stale translation still sits in the IOTLB. Caught when the run's end-of-run checks fail: a
 * DMA fault, a damaged payload, entries left on the list, leaked IOVA space, a failed task.
 */
final class SimCheck {

    private SimCheck() {
    }

    /**
     * @param v a variant
     * @return the hooks that build the variant's unit, or null if the seam has no place for it
     */
    static UnitHooks hooks(Variant v) {
        return switch (v) {
            case CORRECT -> UnitHooks.LIBRARY;
            case M1, M2P, M3 -> new UnitHooks(
                    (strategy, dummy, reclaimer, lock) -> v.zombieHeadList(dummy, reclaimer),
                    UnitHooks.NO_WRAP, QiTask::new);
            case M8 -> new UnitHooks(UnitHooks.LIBRARY.flushList(), UnitHooks.NO_WRAP, QiTaskM8::new);
            default -> null;
        };
    }

    /**
     * Runs the workload.
     *
     * @param v a variant with {@link #hooks}
     * @return the run's problems, empty for a clean run
     * @throws InterruptedException if interrupted
     */
    static List<String> run(Variant v) throws InterruptedException {
        UnitHooks hooks = hooks(v);
        if (hooks == null) {
            throw new IllegalArgumentException(v + " has no place in the simulator's seam");
        }
        MachineConfig d = MachineConfig.defaults(FlushStrategy.FLUSHLIST);
        MachineConfig c = new MachineConfig(d.strategy(), d.mode(), d.qs(), d.iotlbEntries(), d.pageTableLevels(),
                d.superpages(), new EngineTiming(50_000, 0, 0, 0, 0, 1), d.registers(), d.spinNanos(),
                d.batchCoalesce(), d.memoryBytes(), 1, 1, 1, hooks);
        RunResult r;
        try (SimMachine m = new SimMachine(c)) {
            r = new TcpMaerts(m, new WorkloadConfig(2, Duration.ZERO, Duration.ofSeconds(1), 1500, 9))
                    .run(ProgressListener.NONE);
        }
        if (r.clean()) {
            return List.of();
        }
        return r.problems().isEmpty() ? List.of(r.qi().dmaFaults() + " DMA faults") : r.problems();
    }
}
