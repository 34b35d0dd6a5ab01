package io.github.dmarflush.seeded;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.qi.QiSequencer;

/**
 * The public operations of {@link QiSequencer}, as an interface, so that a harness drives the
 * library ({@link LibrarySequencer}) and its seeded copies ({@code QiSequencerM4} and the
 * others in {@code io.github.dmarflush.seeded.variants}) through one type. Every
 * method means what the {@code QiSequencer} method of the same name means, with the same
 * locking rules: the caller holds the unit lock for {@link #emitWaitSeq}, {@link
 * #registerWaiter}, {@link #waitForSeq} and {@link #quiesce}; {@link #processed} and {@link
 * #statusWrite} need no lock; {@link #wakeupWaiters} is called without it.
 */
public interface WaitSequencer extends SeqProcessed {

    /**
     * {@code iommu_qi_emit_wait_seq}.
     *
     * @param emitWait whether to write a wait descriptor (with interrupt) for this number
     * @return the packed (gen, seq)
     */
    long emitWaitSeq(boolean emitWait);

    /** {@code inv_seq_waiters++}, before the tail advance. */
    void registerWaiter();

    /**
     * {@code iommu_qi_wait_for_seq}.
     *
     * @param gseq the packed (gen, seq)
     * @param nowait spin instead of sleeping
     */
    void waitForSeq(long gseq, boolean nowait);

    /**
     * A synchronous wait, as {@code iommu_qi_invalidate_sync}'s tail: emit, register, advance
     * IQT, wait.
     *
     * @param nowait spin instead of sleeping
     * @return the packed (gen, seq) waited for
     */
    long quiesce(boolean nowait);

    /** The QI task's last step. */
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

    /** @return {@code inv_waitd_seq}, exact under the unit lock */
    int nextSeq();

    /** @return {@code inv_seq_waiters} */
    int waiters();

    /** @return wraps to a new generation so far */
    long generationWraps();

    /** @return sleeps on the condition so far */
    long sleeps();

    /** @return sleeps that ended by their timeout with the sequence unprocessed */
    long sleepTimeouts();
}
