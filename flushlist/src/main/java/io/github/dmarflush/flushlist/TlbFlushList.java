package io.github.dmarflush.flushlist;

/**
 * The DMAR unit's TLB flush list: unmapped entries waiting for their IOTLB invalidation to
 * complete before their IOVA range may be reused.
 *
 * <p>Two implementations share this interface so that every measurement compares them in
 * one run: {@link ZombieHeadFlushList}, the lock-free single-consumer list FreeBSD uses
 * since 2022 ({@code tlb_flush_head}/{@code tlb_flush_tail} in
 * {@code sys/x86/iommu/x86_iommu.h}), and {@link LockedFlushList}, the earlier
 * {@code TAILQ} whose consumer takes the unit lock for every entry.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #enqueue}: any number of producers, serialized by the unit lock, which the
 *       caller holds. The entry's wait sequence must be set first.</li>
 *   <li>{@link #drain}: exactly one consumer (the QI task) at a time.</li>
 *   <li>Entries leave in enqueue order. {@code drain} stops at the first entry whose wait
 *       sequence is not yet processed, even if later ones are.</li>
 * </ul>
 *
 * @param <E> the entry type
 */
public interface TlbFlushList<E extends FlushEntry> {

    /**
     * Appends an entry. The caller holds the unit lock and has already filled the entry,
     * its wait sequence ({@link FlushEntry#setWaitSeq}) included; the entry becomes
     * visible to the consumer with all those writes. As FreeBSD's
     * {@code iommu_qi_invalidate_locked}.
     *
     * @param entry the entry to append
     * @throws NullPointerException if {@code entry} is null
     * @throws EntryStillLinkedException if {@code entry} is already on a list
     */
    void enqueue(E entry);

    /**
     * Dequeues, in order, every entry at the front whose wait sequence is processed, and
     * hands each to the {@link Reclaimer}. Stops at the first entry that is not processed
     * or at the end of the list. As FreeBSD's {@code iommu_qi_drain_tlb_flush}.
     *
     * <p>If a {@link Reclaimer} callback throws, the drain stops and the exception
     * propagates. The list stays consistent and usable, but the entries dequeued so far stay
     * dequeued and are not offered again: a callback still due when the other one threw is
     * never made ({@link ZombieHeadFlushList}: the new zombie's {@code releaseItem} after the
     * old zombie's {@code retireElement} threw; {@link LockedFlushList}: {@code retireElement}
     * after {@code releaseItem} threw).
     *
     * @param processed the stop condition, asked once per entry examined
     * @return the number of entries released by this call
     * @throws NullPointerException if {@code processed} is null
     * @throws ConcurrentDrainException if the implementation detects a second consumer
     */
    int drain(SeqProcessed processed);

    /**
     * Whether no entry is waiting. Exact for the consumer thread and for a caller holding
     * the unit lock when no drain runs; otherwise a snapshot that may be stale.
     *
     * @return true if the list holds no waiting entry
     */
    boolean isEmpty();
}
