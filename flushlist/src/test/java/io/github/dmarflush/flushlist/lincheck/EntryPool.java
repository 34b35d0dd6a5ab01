package io.github.dmarflush.flushlist.lincheck;

/**
 * A LIFO pool of retired elements, so that an element the consumer hands back too early is
 * the first one a producer gets again: retiring the tail or a still-live head then shows up
 * as a wrong result (an item lost, duplicated or changed), not only as a dangling
 * reference. Producers take under the unit lock; the consumer returns without it; the pool
 * has its own monitor. Intrusive, so that Lincheck sees few memory events in it.
 */
final class EntryPool {
    private PoolEntry top;

    synchronized PoolEntry obtain() {
        PoolEntry e = top;
        if (e == null) {
            return new PoolEntry();
        }
        top = e.poolNext;
        e.poolNext = null;
        return e;
    }

    synchronized void retire(PoolEntry e) {
        e.poolNext = top;
        top = e;
    }
}
