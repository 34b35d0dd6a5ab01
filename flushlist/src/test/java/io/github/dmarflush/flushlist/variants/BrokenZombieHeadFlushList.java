package io.github.dmarflush.flushlist.variants;

import io.github.dmarflush.flushlist.EntryAccess;
import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import java.util.Objects;

/**
 * {@link ZombieHeadFlushList}'s algorithm with one mistake switched in: {@link
 * Variant#M1_RETIRE_NEW_ZOMBIE}, {@link Variant#M2_PLAIN_STORE} or {@link
 * Variant#M3_OFF_BY_ONE}. Same accessors, same orderings, same order of callbacks as the
 * library class except on the line the variant names. No padding and no second-drainer
 * check: only the algorithm. Single consumer; producers serialized by the caller's lock.
 *
 * @param <E> the entry type
 */
public final class BrokenZombieHeadFlushList<E extends FlushEntry> implements TlbFlushList<E> {

    private final Variant variant;
    private final Reclaimer<? super E> reclaimer;
    /** The zombie; consumer only. */
    private E head;
    /** The last element; producers only, under their lock. */
    private E tail;

    /**
     * @param variant a variant whose component is {@link Variant.Component#LIST}
     * @param dummy the first zombie
     * @param reclaimer the callbacks
     */
    public BrokenZombieHeadFlushList(Variant variant, E dummy, Reclaimer<? super E> reclaimer) {
        if (variant.component() != Variant.Component.LIST) {
            throw new IllegalArgumentException(variant + " does not break the list");
        }
        this.variant = variant;
        this.reclaimer = Objects.requireNonNull(reclaimer);
        EntryAccess.setLinkState(dummy, EntryAccess.ZOMBIE);
        EntryAccess.spNext(dummy, null);
        this.head = dummy;
        this.tail = dummy;
    }

    @Override
    public void enqueue(E entry) {
        if (EntryAccess.linkState(entry) != EntryAccess.FREE) {
            throw EntryAccess.stillLinked(entry);
        }
        EntryAccess.setLinkState(entry, EntryAccess.LINKED);
        EntryAccess.spNext(entry, null);
        if (variant == Variant.M2_PLAIN_STORE) {
            EntryAccess.spNext(tail, entry); // BROKEN: plain store publishes the entry
        } else {
            EntryAccess.soNext(tail, entry);
        }
        tail = entry;
    }

    @Override
    @SuppressWarnings("unchecked")
    public int drain(SeqProcessed processed) {
        int released = 0;
        E zombie = head;
        for (;;) {
            FlushEntry next = EntryAccess.laNext(zombie);
            if (next == null) {
                break;
            }
            long asked = variant == Variant.M3_OFF_BY_ONE
                    // BROKEN: asks about the sequence before the entry's own. The packed
                    // (gen, seq) minus one is (gen, seq - 1), or (gen - 1, 0xFFFFFFFF).
                    ? next.waitSeq() - 1
                    : next.waitSeq();
            if (!processed.processed(asked)) {
                break;
            }
            E entry = (E) next;
            head = entry;
            EntryAccess.setLinkState(entry, EntryAccess.ZOMBIE);
            if (variant == Variant.M1_RETIRE_NEW_ZOMBIE) {
                // BROKEN: the new zombie (maybe the tail) goes back to the pool while it is
                // still the head; the old zombie is simply dropped.
                EntryAccess.spNext(zombie, null);
                EntryAccess.setLinkState(zombie, EntryAccess.FREE);
                EntryAccess.setLinkState(entry, EntryAccess.FREE);
                reclaimer.retireElement(entry);
            } else {
                EntryAccess.spNext(zombie, null);
                EntryAccess.setLinkState(zombie, EntryAccess.FREE);
                reclaimer.retireElement(zombie);
            }
            reclaimer.releaseItem(entry);
            released++;
            zombie = entry;
        }
        return released;
    }

    @Override
    public boolean isEmpty() {
        return EntryAccess.laNext(head) == null;
    }
}
