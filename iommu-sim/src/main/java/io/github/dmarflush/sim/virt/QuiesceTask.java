package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.kern.AdaptiveMutex;
import io.github.dmarflush.sim.kern.KThread;
import io.github.dmarflush.sim.kern.Op;
import io.github.dmarflush.sim.kern.Program;

/**
 * The end-of-run quiesce of one unit in virtual time, as {@code iommu_qi_common_fini}: under
 * {@code dmarhw}, emit a wait descriptor and advance the tail; spin until the hardware has
 * processed it; then run the QI task once more, so that it releases every entry the
 * descriptors before covered. A simulated thread, because the wait takes simulated time.
 */
final class QuiesceTask implements Program {

    private final DmarUnit unit;
    private final AdaptiveMutex.Site site;
    private final long pollNanos;
    private int pc;
    private long gseq;

    QuiesceTask(DmarUnit unit, long pollNanos) {
        this.unit = unit;
        this.site = VirtualClock.adaptive(unit.lock()).site("iommu_qi_common_fini");
        this.pollNanos = Math.max(1, pollNanos);
    }

    @Override
    public Op next(KThread self) {
        switch (pc++) {
            case 0:
                return site.acquire();
            case 1:
                gseq = unit.emitWaitSeqLocked(true);
                unit.ring().advanceTail();
                return site.mutex().release();
            case 2:
                return new Op.SpinUntil(() -> unit.sequencer().processed(gseq), pollNanos);
            case 3:
                unit.taskRunner().enqueue();
                return Op.Exit.EXIT;
            default:
                throw new IllegalStateException("quiesce ran past its end");
        }
    }
}
