package io.github.dmarflush.flushlist;

/**
 * Whether the invalidation wait descriptor identified by a packed (gen, seq) has been
 * processed by the hardware: the drain's stop condition. Implemented by
 * {@code io.github.dmarflush.flushlist.qi.QiSequencer} as FreeBSD's
 * {@code iommu_qi_seq_processed}; tests supply their own.
 *
 * <p>Called on the consumer thread without the unit lock; an implementation must read
 * the hardware-written sequence number with at least acquire semantics.
 */
@FunctionalInterface
public interface SeqProcessed {

    /**
     * @param gseq the packed (gen, seq) of an entry, as set by {@link FlushEntry#setWaitSeq}
     * @return true if the wait descriptor for {@code gseq}, and so every invalidation
     *     queued before it, has completed
     */
    boolean processed(long gseq);
}
