package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.seeded.UnmapSteps;
import io.github.dmarflush.seeded.Variant;
import io.github.dmarflush.seeded.WaitSequencer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * Builds the objects under test: the library's classes, or, when the JVM runs with
 * {@code -Ddmarflush.variant=NAME}, the seeded bug of that name from the {@code seeded-bugs}
 * module (README, "Seeded bugs"), wherever the variant concerns that object. The tests build
 * everything through here and never name an implementation. An unknown name fails the first
 * test that reads it, so a typo cannot pass as a clean run.
 *
 * <pre>
 * java -jar stress-tests/target/jcstress.jar -m quick -t RecyclingRace_ZombieHead \
 *      -jvmArgsPrepend -Ddmarflush.variant=M1
 * </pre>
 */
public final class Subjects {

    /**
     * How long a synchronous waiter sleeps before it re-checks on its own: the "tick" of
     * {@code iommu_qi_wait_for_seq}. A waiter released by it instead of by the QI task's
     * wakeup is a lost wakeup, so it is long: {@code -Ddmarflush.sleepTimeoutMs}, default
     * 5000 ms (a 2 s timeout once ran out on this shared machine before the hardware
     * actor, descheduled, had run). Runs of broken variants shorten it so that each lost wakeup costs less.
     */
    public static final long SLEEP_TIMEOUT_NANOS =
            TimeUnit.MILLISECONDS.toNanos(Long.getLong("dmarflush.sleepTimeoutMs", 5000));

    /** The implementation this JVM tests: {@code -Ddmarflush.variant}, default the library. */
    public static final Variant VARIANT = Variant.selected();

    private Subjects() {
    }

    /**
     * The zombie-head flush list, or the variant's copy (M1, M2P, M3).
     *
     * @param dummy the first zombie
     * @param reclaimer the callbacks
     * @return the list
     */
    public static TlbFlushList<StressEntry> zombieHeadList(StressEntry dummy, Reclaimer<? super StressEntry> reclaimer) {
        return VARIANT.zombieHeadList(dummy, reclaimer);
    }

    /**
     * The locked baseline list (no broken copy: the variants are about the lock-free list
     * and the protocol).
     *
     * @param unitLock the unit lock
     * @param reclaimer the callbacks
     * @return the list
     */
    public static TlbFlushList<StressEntry> lockedList(Lock unitLock, Reclaimer<? super StressEntry> reclaimer) {
        return new LockedFlushList<>(unitLock, reclaimer);
    }

    /**
     * The (gen, seq) protocol for {@code unit}, attached to its status writes: the library's
     * {@code QiSequencer}, or the variant's copy (M4, M5, M6, M7, FREEBSD_WRAP).
     *
     * @param unitLock the unit lock
     * @param unit the unit's queue and hardware
     * @param gen the first generation
     * @param seq the first sequence number, not 0; the status word starts at {@code seq - 1}
     * @return the sequencer
     */
    public static WaitSequencer sequencer(UnitLock unitLock, FakeQiUnit unit, int gen, int seq) {
        WaitSequencer s = VARIANT.sequencer(unitLock, unit, gen, seq, SLEEP_TIMEOUT_NANOS);
        unit.attach(s);
        return s;
    }

    /**
     * The QI task ({@code dmar_qi_task}): the library's {@code QiTask}, or the variant's
     * (M8, or the same pass over a copy of the sequencer).
     *
     * @param list the flush list
     * @param sequencer the sequencer
     * @param unit the unit (its ICS register)
     * @return the task
     */
    public static Runnable qiTask(TlbFlushList<?> list, WaitSequencer sequencer, FakeQiUnit unit) {
        return VARIANT.qiTask(list, sequencer, unit);
    }

    /**
     * The unmap path's last steps, as {@code iommu_qi_invalidate_locked}: fill the entry
     * (wait sequence, range), then link it, in the variant's order (M2L links first). The
     * caller holds the unit lock and advances the queue tail itself.
     *
     * @param list the flush list
     * @param e the entry
     * @param gseq its packed (gen, seq)
     * @param start first IOVA of the range
     * @param end IOVA past the range
     */
    public static void fillAndEnqueue(TlbFlushList<StressEntry> list, StressEntry e, long gseq, long start, long end) {
        VARIANT.unmap(new UnmapSteps() {
            @Override
            public void fill() {
                e.setWaitSeq(gseq);
                e.start = start;
                e.end = end;
            }

            @Override
            public void link() {
                list.enqueue(e);
            }

            @Override
            public void advanceTail() {
                // The tests advance IQT themselves, after this call.
            }
        });
    }
}
