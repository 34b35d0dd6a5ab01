package io.github.dmarflush.flushlist;

/**
 * Test-only bridge to the package-private link of {@link FlushEntry}, so that the broken
 * copies of the list in {@code io.github.dmarflush.flushlist.variants} can use the same
 * accessors (and the same memory orderings) as {@link ZombieHeadFlushList}. Not part of
 * the shipped jar.
 */
public final class EntryAccess {

    /** {@link FlushEntry#FREE}. */
    public static final int FREE = FlushEntry.FREE;
    /** {@link FlushEntry#LINKED}. */
    public static final int LINKED = FlushEntry.LINKED;
    /** {@link FlushEntry#ZOMBIE}. */
    public static final int ZOMBIE = FlushEntry.ZOMBIE;

    private EntryAccess() {
    }

    public static int linkState(FlushEntry e) {
        return e.linkState;
    }

    public static void setLinkState(FlushEntry e, int state) {
        e.linkState = state;
    }

    /** Acquire load of the link. */
    public static FlushEntry laNext(FlushEntry e) {
        return e.laNext();
    }

    /** Release store of the link. */
    public static void soNext(FlushEntry e, FlushEntry next) {
        e.soNext(next);
    }

    /** Plain store of the link. */
    public static void spNext(FlushEntry e, FlushEntry next) {
        e.spNext(next);
    }

    /** The message {@link EntryStillLinkedException} would carry. */
    public static IllegalStateException stillLinked(FlushEntry e) {
        return new EntryStillLinkedException(e, ZombieHeadFlushList.describe(e.linkState));
    }
}
