package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.stress.variants.BrokenZombieHeadList;
import io.github.dmarflush.stress.variants.VariantQiTask;
import io.github.dmarflush.stress.variants.VariantSequencer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * Builds the objects under test: the library's classes under {@link Variant#NONE}, a
 * broken copy where the {@linkplain Variant#SELECTED selected variant} concerns that
 * object. The tests build everything through here and never name an implementation.
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

    private Subjects() {
    }

    /**
     * The zombie-head flush list, or its M1/M2/M3 copy.
     *
     * @param dummy the first zombie
     * @param reclaimer the callbacks
     * @return the list
     */
    public static TlbFlushList<StressEntry> zombieHeadList(StressEntry dummy, Reclaimer<? super StressEntry> reclaimer) {
        return switch (Variant.SELECTED) {
            case M1, M2, M3 -> new BrokenZombieHeadList(Variant.SELECTED, dummy, reclaimer);
            default -> new ZombieHeadFlushList<>(dummy, reclaimer);
        };
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
     * {@code QiSequencer}, or a copy for M4, M5, FREEBSD_WRAP, M6, M7, SLEEPQ.
     *
     * @param unitLock the unit lock
     * @param unit the unit's queue and hardware
     * @param gen the first generation
     * @param seq the first sequence number, not 0; the status word starts at {@code seq - 1}
     * @return the sequencer
     */
    public static Sequencer sequencer(UnitLock unitLock, FakeQiUnit unit, int gen, int seq) {
        Sequencer s = switch (Variant.SELECTED) {
            case M4, M5, FREEBSD_WRAP, M6, M7, SLEEPQ ->
                    new VariantSequencer(Variant.SELECTED, unitLock, unit, gen, seq, SLEEP_TIMEOUT_NANOS);
            default -> new LibrarySequencer(unitLock, unit, gen, seq, SLEEP_TIMEOUT_NANOS);
        };
        unit.attach(s);
        return s;
    }

    /**
     * The QI task ({@code dmar_qi_task}): the library's {@code QiTask} when the sequencer
     * is the library's and the variant is not M8, otherwise a copy.
     *
     * @param list the flush list
     * @param sequencer the sequencer
     * @param unit the unit (its ICS register)
     * @return the task
     */
    public static Runnable qiTask(TlbFlushList<?> list, Sequencer sequencer, FakeQiUnit unit) {
        if (sequencer instanceof LibrarySequencer lib && Variant.SELECTED != Variant.M8) {
            return new QiTask(list, lib.qi(), unit);
        }
        return new VariantQiTask(Variant.SELECTED, list, sequencer, unit);
    }

    /**
     * The unmap path's last step, as {@code iommu_qi_invalidate_locked}: fill the entry
     * (wait sequence, range), then link it. The caller holds the unit lock. Variant M2L
     * links first and fills afterwards.
     *
     * @param list the flush list
     * @param e the entry
     * @param gseq its packed (gen, seq)
     * @param start first IOVA of the range
     * @param end IOVA past the range
     */
    public static void fillAndEnqueue(TlbFlushList<StressEntry> list, StressEntry e, long gseq, long start, long end) {
        if (Variant.SELECTED == Variant.M2L) {
            list.enqueue(e); // BUG M2L: the consumer may see the entry before its fields
            e.setWaitSeq(gseq);
            e.start = start;
            e.end = end;
            return;
        }
        e.setWaitSeq(gseq);
        e.start = start;
        e.end = end;
        list.enqueue(e);
    }
}
