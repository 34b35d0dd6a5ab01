package io.github.dmarflush.seeded;

/**
 * The last three steps of the unmap path, {@code iommu_qi_invalidate_locked}, which the
 * caller takes under the unit lock after queueing the IOTLB invalidation and taking the
 * entry's (gen, seq): {@link #fill} the entry (its wait sequence and IOVA range), {@link
 * #link} it on the flush list, {@link #advanceTail} (IQT) past its wait descriptor. A harness
 * implements them; {@link Variant#unmap} runs them in the variant's order.
 */
public interface UnmapSteps {

    /** Writes the entry's wait sequence and range ({@code entry->gseq = ...}). */
    void fill();

    /** Links the entry on the flush list ({@code TlbFlushList.enqueue}). */
    void link();

    /** Writes IQT ({@code InvalidationQueue.advanceTail}). */
    void advanceTail();
}
