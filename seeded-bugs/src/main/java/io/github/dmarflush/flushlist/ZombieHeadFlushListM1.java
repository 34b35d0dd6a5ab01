package io.github.dmarflush.flushlist;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

// SEEDED BUG M1: the drain retires the new zombie (the entry it has just dequeued,
// maybe the tail) instead of the old zombie.
// A copy of ZombieHeadFlushList with that one change, marked in the code below, for the
// seeded-bugs matrix (module seeded-bugs; never in the flushlist jar).
// It sits in the library's package to reach FlushEntry's package-private link, and
// extends the library's padding superclasses instead of declaring them again.

/**
 * The lock-free single-consumer TLB flush list with a zombie head, as FreeBSD's
 * {@code tlb_flush_head}/{@code tlb_flush_tail} ({@code sys/x86/iommu/x86_iommu.h}),
 * filled by {@code iommu_qi_invalidate_locked} and emptied by
 * {@code iommu_qi_drain_tlb_flush} ({@code sys/x86/iommu/iommu_utils.c}).
 *
 * <h2>Implementation notes</h2>
 * An intrusive singly-linked FIFO of {@link FlushEntry} elements.
 * <ul>
 *   <li>{@code head} and {@code tail} are never null. {@code head} is the <em>zombie</em>:
 *       the element that held the last dequeued item (initially the dummy given to the
 *       constructor). The first waiting entry is {@code head.next}; the list is empty
 *       when {@code head.next == null}, and then {@code tail == head}.</li>
 *   <li>Only producers touch {@code tail}; they are serialized by the unit lock, which
 *       the caller of {@link #enqueue} holds. Only the consumer touches {@code head}.</li>
 *   <li>Enqueue fills the entry, clears its link, then publishes it with a release store
 *       into {@code tail.next} (the linearization point) and moves {@code tail}.</li>
 *   <li>Drain acquire-loads {@code head.next}; if that entry is processed it becomes the
 *       new zombie, the old zombie is retired, and the entry's item is released.</li>
 *   <li><b>The tail is never retired.</b> The consumer retires only the old zombie, and
 *       only once the old zombie has a successor; an element with a successor is not the
 *       tail. So a producer holding the lock can always store into {@code tail.next}, even
 *       while the consumer runs.</li>
 *   <li>A retired element has its link cleared, so an element that a pool or the old
 *       generation keeps alive does not keep younger entries reachable.</li>
 *   <li>Not a {@code java.util.Queue}: no size, no iteration, no removal other than
 *       {@link #drain}, and no element is handed back while it is still the zombie.</li>
 * </ul>
 * No allocation on the enqueue and drain paths: they only move references between elements
 * the caller owns (only a rejected call allocates, for its exception).
 *
 * <h2>Thread-safety</h2>
 * {@link #enqueue}: any number of threads, serialized by one lock the caller holds (the
 * list does not check it). {@link #drain}: one thread at a time, without any lock; a second
 * concurrent drainer is detected and rejected with {@link ConcurrentDrainException}. The
 * list itself must be published safely (a final field, or under the unit lock).
 *
 * @param <E> the entry type
 */
public final class ZombieHeadFlushListM1<E extends FlushEntry> extends ZhlPad2<E>
        implements TlbFlushList<E> {

    private static final VarHandle DRAINER;

    static {
        try {
            DRAINER = MethodHandles.lookup()
                    .findVarHandle(ZhlConsumerFields.class, "drainer", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Creates an empty list whose first zombie is {@code dummy}, as FreeBSD initializes
     * both ends with {@code iommu_gas_alloc_entry(NULL, 0)} in {@code iommu_qi_common_init}.
     * The dummy is retired through {@code reclaimer} like any other element once it stops
     * being the zombie; its item is never released.
     *
     * @param dummy a free entry that becomes the initial zombie
     * @param reclaimer the two reclamation callbacks, called on the consumer thread
     * @throws NullPointerException if an argument is null
     * @throws EntryStillLinkedException if {@code dummy} is on a list
     */
    public ZombieHeadFlushListM1(E dummy, Reclaimer<? super E> reclaimer) {
        super(Objects.requireNonNull(reclaimer, "reclaimer"));
        Objects.requireNonNull(dummy, "dummy");
        if (dummy.linkState != FlushEntry.FREE) {
            throw new EntryStillLinkedException(dummy, describe(dummy.linkState));
        }
        dummy.linkState = FlushEntry.ZOMBIE;
        dummy.spNext(null);
        this.head = dummy;
        this.tail = dummy;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Takes no lock and allocates nothing. The caller must hold the unit lock that
     * serializes all producers of this list.
     */
    @Override
    public void enqueue(E entry) {
        Objects.requireNonNull(entry, "entry");
        if (entry.linkState != FlushEntry.FREE) {
            throw new EntryStillLinkedException(entry, describe(entry.linkState));
        }
        entry.linkState = FlushEntry.LINKED;
        entry.spNext(null);
        // Release store: the entry's fields (wait sequence, range) and its cleared link
        // become visible to a consumer that acquire-loads this link. Linearization point.
        // Safe although the consumer runs concurrently: tail is never retired (see notes).
        tail.soNext(entry);
        tail = entry;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Takes no lock and allocates nothing. For each released entry {@code e} with
     * previous zombie {@code z}: {@code e} becomes the zombie, {@link Reclaimer#retireElement}
     * gets {@code z} (its link already cleared), then {@link Reclaimer#releaseItem} gets
     * {@code e}, in that order, as in FreeBSD.
     *
     * @throws ConcurrentDrainException if another thread is draining this list, or if a
     *     reclaim callback re-enters drain
     */
    @Override
    @SuppressWarnings("unchecked")
    public int drain(SeqProcessed processed) {
        Objects.requireNonNull(processed, "processed");
        // Fast path for an empty list, without the CAS: seeing no drainer (acquire) makes the
        // last drainer's head visible, and an empty list has nothing to release or retire.
        if (DRAINER.getAcquire(this) == null && head.laNext() == null) {
            return 0;
        }
        Thread me = Thread.currentThread();
        Thread other = (Thread) DRAINER.compareAndExchange(this, (Thread) null, me);
        if (other != null) {
            throw new ConcurrentDrainException(me, other);
        }
        int released = 0;
        try {
            E zombie = head;
            for (;;) {
                // Acquire load: pairs with the producer's release store in enqueue, so the
                // entry's wait sequence read below is the one the producer wrote.
                FlushEntry next = zombie.laNext();
                if (next == null || !processed.processed(next.waitSeq())) {
                    break;
                }
                E entry = (E) next;
                head = entry;
                entry.linkState = FlushEntry.ZOMBIE;
                // The old zombie has a successor, so it is not the tail: no producer will
                // store into its link again, and it may be handed back.
                zombie.spNext(null);
                zombie.linkState = FlushEntry.FREE;
                reclaimer.retireElement(entry); // SEEDED BUG M1: the new zombie (maybe the tail), not the old one
                reclaimer.releaseItem(entry);
                released++;
                zombie = entry;
            }
        } finally {
            // Release: the next drainer, which CASes this field, sees our head.
            DRAINER.setRelease(this, (Thread) null);
        }
        return released;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads the zombie's link with an acquire load.
     */
    @Override
    public boolean isEmpty() {
        return head.laNext() == null;
    }

    /**
     * The current zombie head. For the consumer thread, and for diagnostics on a quiescent
     * list.
     *
     * @return the zombie, never null
     */
    public E zombie() {
        return head;
    }

    /**
     * Counts the elements reachable from the zombie head by following links, the zombie
     * included: 1 for an empty list. Walks the list: for the consumer thread, and for
     * tests and diagnostics on a quiescent list.
     *
     * @return the number of reachable elements, at least 1
     */
    public int reachableCount() {
        int n = 0;
        for (FlushEntry e = head; e != null; e = e.laNext()) {
            n++;
        }
        return n;
    }

    static String describe(int linkState) {
        return switch (linkState) {
            case FlushEntry.ZOMBIE -> "the zombie head of a flush list";
            case FlushEntry.RELEASING -> "being released by a drain, not yet retired";
            default -> "linked on a flush list, waiting for its invalidation";
        };
    }
}
