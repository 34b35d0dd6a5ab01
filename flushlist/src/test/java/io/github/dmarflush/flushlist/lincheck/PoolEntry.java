package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.FlushEntry;

/**
 * A flush-list entry with an item (the stand-in for an IOVA range) and the ring index of
 * its wait descriptor, recycled through an {@link EntryPool}.
 */
public final class PoolEntry extends FlushEntry {
    /** The item; released by the drain. Written by the producer before the enqueue. */
    int item;
    /** Index in the invalidation ring of the wait descriptor that covers this entry. */
    int descriptor;
    /** The pool's own link; guarded by the pool's monitor. */
    PoolEntry poolNext;

    @Override
    public String toString() {
        return "entry(item " + item + ")";
    }
}
