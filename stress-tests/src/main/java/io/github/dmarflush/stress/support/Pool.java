package io.github.dmarflush.stress.support;

import java.util.ArrayDeque;

/**
 * The element allocator of the recycling tests, standing in for the UMA zone that
 * {@code iommu_gas_free_entry} returns map entries to: the consumer puts retired elements
 * in, producers take them out and reuse them. Synchronized, so that taking an element
 * happens-after retiring it. An element in the pool has {@link StressEntry#pooled} set.
 */
public final class Pool {

    private final ArrayDeque<StressEntry> free = new ArrayDeque<>();

    /**
     * Puts a retired element back.
     *
     * @param e the element; its {@code pooled} flag is set here
     */
    public synchronized void put(StressEntry e) {
        e.pooled = true;
        free.push(e);
    }

    /**
     * Takes the most recently retired element, clearing its {@code pooled} flag, or
     * returns null when the pool is empty.
     *
     * @return an element or null
     */
    public synchronized StressEntry take() {
        StressEntry e = free.poll();
        if (e != null) {
            e.pooled = false;
        }
        return e;
    }
}
