package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.FlushEntry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A flush-list entry as the tests use it: an id that says which unmap produced it, an
 * IOVA range {@code [start, end)}, and a {@code pooled} flag that the test's recycling
 * pool sets while the element sits in the pool.
 *
 * <p>The library lists link it through {@link FlushEntry}'s own link. The broken list
 * copies in {@code io.github.dmarflush.stress.variants} cannot reach that (package-private)
 * link, so they use a second one here, {@code vnext}, with accessors named after their
 * ordering as in the library (la = load-acquire, lp = load-plain, so = store-release,
 * sp = store-plain). A test never reads either link except through
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

    @SuppressWarnings("unused") // accessed through VNEXT
    private StressEntry vnext;

    private static final VarHandle VNEXT;

    static {
        try {
            VNEXT = MethodHandles.lookup().findVarHandle(StressEntry.class, "vnext", StressEntry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @param id the entry's id */
    public StressEntry(int id) {
        this.id = id;
    }

    /**
     * Whether either link (the library's or the variants') is set. A pooled element must
     * have both cleared: a set link on an element taken from the pool means someone wrote
     * into it while it was pooled. A plain read, for the thread that owns the element.
     *
     * @return true if a link is set
     */
    public boolean linkSet() {
        return nextPlain() != null || VNEXT.get(this) != null;
    }

    /** @return the variants' link, load-acquire */
    public StressEntry laVnext() {
        return (StressEntry) VNEXT.getAcquire(this);
    }

    /** @param e the variants' link, store-release */
    public void soVnext(StressEntry e) {
        VNEXT.setRelease(this, e);
    }

    /** @param e the variants' link, store-plain */
    public void spVnext(StressEntry e) {
        VNEXT.set(this, e);
    }

    @Override
    public String toString() {
        return "StressEntry#" + id;
    }
}
