package io.github.dmarflush.flushlist;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An element of a {@link TlbFlushList}: the intrusive link and the wait sequence number
 * of one unmapped range, as the {@code tlb_flush_next} and {@code gseq} fields of
 * FreeBSD's {@code struct iommu_map_entry} ({@code sys/dev/iommu/iommu.h}).
 *
 * <p>Subclass it to carry the item itself (for an IOMMU, the IOVA range {@code [start,
 * end)} that goes back to the allocator once the invalidation is complete). The list
 * never allocates: each element is linked through its own {@link #next} field.
 *
 * <h2>Thread-safety</h2>
 * An entry is owned by one thread at a time. The producer that enqueues it fills the
 * subclass fields and calls {@link #setWaitSeq(long)} before {@link TlbFlushList#enqueue};
 * the list's release store of the link publishes those writes to the consumer, whose
 * acquire load of the link sees them. After the consumer hands the entry to
 * {@link Reclaimer#retireElement} it belongs to whoever the reclaimer gives it to.
 *
 * <h2>Link state</h2>
 * Each entry records whether it is free, linked (waiting on a list), the zombie head of a
 * list, or being handed to {@link Reclaimer#releaseItem} by a {@link LockedFlushList}
 * drain, so that enqueueing an entry that is not yet retired fails with
 * {@link EntryStillLinkedException} instead of corrupting both.
 */
public class FlushEntry {

    /** The entry is not on any list: it may be enqueued. */
    static final int FREE = 0;
    /** The entry is on a list, waiting for its invalidation to complete. */
    static final int LINKED = 1;
    /** The entry has been dequeued and is the zombie head of its list. */
    static final int ZOMBIE = 2;
    /**
     * The entry has been dequeued by {@link LockedFlushList#drain}, which is handing it to
     * {@link Reclaimer#releaseItem}; it becomes free just before
     * {@link Reclaimer#retireElement}.
     */
    static final int RELEASING = 3;

    /**
     * The link to the next entry. Producers write it with a release store
     * ({@link #soNext}), the consumer reads it with an acquire load ({@link #laNext});
     * a retired element has it cleared so that it keeps no younger entry alive.
     */
    @SuppressWarnings("unused") // accessed only through NEXT, in the mode each call site names
    private FlushEntry next;

    /**
     * The (gen, seq) of the wait descriptor that covers this entry's invalidation, as
     * packed by {@code io.github.dmarflush.flushlist.qi.GenSeq}. Plain: written by the
     * producer before the release store that publishes the entry.
     */
    private long waitSeq;

    /** One of {@link #FREE}, {@link #LINKED}, {@link #ZOMBIE}, {@link #RELEASING}. Plain; see the class doc. */
    int linkState;

    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(FlushEntry.class, "next", FlushEntry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Creates a free entry with wait sequence 0. */
    public FlushEntry() {
    }

    /**
     * Records the (gen, seq) of the wait descriptor that covers this entry's
     * invalidation. Call it before {@link TlbFlushList#enqueue}; the enqueue publishes it.
     *
     * @param gseq the packed (gen, seq), see {@code GenSeq.of(int, int)}
     */
    public final void setWaitSeq(long gseq) {
        this.waitSeq = gseq;
    }

    /**
     * The packed (gen, seq) set by {@link #setWaitSeq(long)}.
     *
     * @return the packed (gen, seq)
     */
    public final long waitSeq() {
        return waitSeq;
    }

    /**
     * Whether this entry is on a list, either waiting or as the zombie head, or is being
     * handed to {@link Reclaimer#releaseItem} by a {@link LockedFlushList} drain. Meant for
     * assertions and diagnostics; the answer is exact only for the thread that owns the
     * entry or when the list is quiescent.
     *
     * @return true if the entry is linked, a zombie head, or not yet retired
     */
    public final boolean isOnList() {
        return linkState != FREE;
    }

    /**
     * The successor read with a plain load. For the owner of the entry and for
     * diagnostics on a quiescent list only.
     *
     * @return the next entry, or null
     */
    public final FlushEntry nextPlain() {
        return (FlushEntry) NEXT.get(this);
    }

    // Accessors named after the ordering they give, as JCTools does:
    // la = load-acquire, so = store-ordered (release), sp = store-plain.

    final FlushEntry laNext() {
        return (FlushEntry) NEXT.getAcquire(this);
    }

    final void soNext(FlushEntry e) {
        NEXT.setRelease(this, e);
    }

    final void spNext(FlushEntry e) {
        NEXT.set(this, e);
    }
}
