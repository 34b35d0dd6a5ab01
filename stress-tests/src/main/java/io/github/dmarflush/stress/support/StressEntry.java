package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.FlushEntry;

/**
 * A flush-list entry as the tests use it: an id that says which unmap produced it, an
 * IOVA range {@code [start, end)}, and a {@code pooled} flag that the test's recycling
 * pool sets while the element sits in the pool.
 *
 * <p>Every list links it through {@link FlushEntry}'s own link (the seeded-bugs copies of the
 * list live in the library's package); a test reads that link only through
 * {@link #linkSet()}.
 */
public final class StressEntry extends FlushEntry {

    /** Which unmap this is (1, 2, ...); 0 for a dummy. Plain: written before the enqueue. */
    public int id;
    /** First IOVA of the unmapped range. Plain: written before the enqueue. */
    public long start;
    /** IOVA just past the unmapped range. Plain: written before the enqueue. */
    public long end;
    /**
     * True while the element sits in a test pool. Volatile: the producer checks the flag
     * of its current tail, which the consumer may have set.
     */
    public volatile boolean pooled;

    /** @param id the entry's id */
    public StressEntry(int id) {
        this.id = id;
    }

    /**
     * Whether the link is set. A pooled element must have it cleared: a set link on an
     * element taken from the pool means someone wrote into it while it was pooled. A plain
     * read, for the thread that owns the element.
     *
     * @return true if the link is set
     */
    public boolean linkSet() {
        return nextPlain() != null;
    }

    @Override
    public String toString() {
        return "StressEntry#" + id;
    }
}
