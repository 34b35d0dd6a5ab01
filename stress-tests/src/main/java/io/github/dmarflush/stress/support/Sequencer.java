package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.SeqProcessed;

/**
 * The (gen, seq) protocol as the tests drive it: the operations of
 * {@code io.github.dmarflush.flushlist.qi.QiSequencer} that a test calls, behind an
 * interface so that a broken copy ({@code variants.VariantSequencer}) can stand in for the
 * library ({@link LibrarySequencer}). Thread-safety and lock rules are those of
 * {@code QiSequencer}.
 */
public interface Sequencer extends SeqProcessed {

    /**
     * {@code iommu_qi_emit_wait_seq}: the next (gen, seq), with a wait descriptor (IF, SW)
     * when {@code emitWait}. Unit lock held.
     *
     * @param emitWait whether to write a wait descriptor
     * @return the packed (gen, seq)
     */
    long emitWaitSeq(boolean emitWait);

    /**
     * A synchronous invalidation's wait, as {@code iommu_qi_invalidate_sync}: emit a wait
     * descriptor, register as a waiter, advance the queue tail, wait (sleeping unless
     * {@code nowait}) until processed. Unit lock held.
     *
     * @param nowait spin instead of sleeping
     * @return the packed (gen, seq) waited for
     */
    long quiesce(boolean nowait);

    /** The QI task's last step: wake the waiters if any are registered. Unit lock not held. */
    void wakeupWaiters();

    /**
     * The hardware's status write.
     *
     * @param seq the status data (unsigned)
     */
    void statusWrite(int seq);

    /** @return {@code inv_waitd_seq_hw} */
    int seqHw();

    /** @return {@code inv_waitd_gen} */
    int gen();

    /** @return how many times a waiter went to sleep */
    long sleeps();

    /**
     * Sleeps that ended because their timeout ran out, not because they were woken,
     * whether or not the sequence was processed by then.
     *
     * @return the count
     */
    long sleepsEndedByTimeout();
}
