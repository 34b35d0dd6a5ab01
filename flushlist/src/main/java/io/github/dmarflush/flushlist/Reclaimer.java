package io.github.dmarflush.flushlist;

/**
 * The two reclamation callbacks of a {@link TlbFlushList}, one per lifetime.
 *
 * <p>An entry carries an <em>item</em> (for an IOMMU, an IOVA range) and is itself an
 * <em>element</em> of the list (the struct that holds the link). The item may be given
 * back as soon as its invalidation has completed and the consumer dequeues it; the
 * element must stay allocated while it is the zombie head, because producers may still
 * store into the link of the element {@code tail} points to. FreeBSD calls these
 * {@code iommu_gas_free_space} and {@code iommu_gas_free_entry}
 * ({@code sys/x86/iommu/iommu_utils.c}, {@code iommu_qi_drain_tlb_flush}).
 *
 * <p>Both are called on the consumer thread, from inside {@link TlbFlushList#drain}, never
 * with the list's internal state half-updated. The zombie-head list calls them without the
 * unit lock; the locked baseline calls them after dropping the unit lock for the entry.
 * They must not call {@code drain} on the same list.
 *
 * @param <E> the entry type
 */
public interface Reclaimer<E extends FlushEntry> {

    /**
     * The entry has been dequeued: its invalidation has completed, so its item (IOVA
     * range) may be reused. The entry itself is now the zombie head (zombie-head list) or
     * is about to be {@linkplain #retireElement retired} (locked list): do not recycle it
     * here.
     *
     * @param entry the dequeued entry, never null
     */
    void releaseItem(E entry);

    /**
     * The element is no longer referenced by the list: it may be recycled or reused for a
     * new enqueue. Its link has been cleared.
     *
     * @param element the retired element, never null; never the element {@code tail}
     *     points to
     */
    void retireElement(E element);
}
