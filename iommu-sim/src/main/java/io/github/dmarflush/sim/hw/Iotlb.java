package io.github.dmarflush.sim.hw;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The unit's IOTLB: a direct-mapped cache of (domain, IOVA page) to physical page
 * translations, filled on a page walk and emptied only by invalidation descriptors. A
 * translation stays cached after its page-table entry is cleared, exactly the hazard the
 * flush list exists for: until the IOTLB invalidation completes, a device may still reach the
 * old physical page through the unmapped IOVA.
 *
 * <p>Thread-safe: each slot is replaced atomically with an immutable entry, so a lookup never
 * sees a tag from one translation and a frame from another.
 */
public final class Iotlb {

    /** One cached translation. */
    record Entry(int domain, long iovaPage, long physPage) {
    }

    private final AtomicReferenceArray<Entry> slots;
    private final int mask;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder invalidatedEntries = new LongAdder();

    /**
     * @param capacity number of slots, a power of two
     * @throws IllegalArgumentException if {@code capacity} is not a power of two
     */
    public Iotlb(int capacity) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("IOTLB capacity must be a power of two, got " + capacity);
        }
        this.slots = new AtomicReferenceArray<>(capacity);
        this.mask = capacity - 1;
    }

    private int slot(int domain, long iovaPage) {
        long h = iovaPage * 0x9E3779B97F4A7C15L + domain;
        return (int) (h >>> 40) & mask;
    }

    /**
     * @param domain domain id
     * @param iovaPage IOVA page number (IOVA / 4 KiB)
     * @return the cached physical page number, or -1 on a miss
     */
    public long lookup(int domain, long iovaPage) {
        Entry e = slots.get(slot(domain, iovaPage));
        if (e != null && e.domain() == domain && e.iovaPage() == iovaPage) {
            hits.increment();
            return e.physPage();
        }
        misses.increment();
        return -1;
    }

    /**
     * Caches a translation found by a page walk.
     *
     * @param domain domain id
     * @param iovaPage IOVA page number
     * @param physPage physical page number
     */
    public void fill(int domain, long iovaPage, long physPage) {
        slots.set(slot(domain, iovaPage), new Entry(domain, iovaPage, physPage));
    }

    /**
     * Page-selective invalidation: drops cached translations of {@code 2^am} pages from
     * {@code iovaPage} in {@code domain}.
     *
     * @param domain domain id
     * @param iovaPage first IOVA page number, aligned to {@code 2^am}
     * @param am address mask
     */
    public void invalidatePages(int domain, long iovaPage, int am) {
        long n = 1L << am;
        if (n > slots.length()) {
            invalidateDomain(domain);
            return;
        }
        for (long p = iovaPage; p < iovaPage + n; p++) {
            int s = slot(domain, p);
            Entry e = slots.get(s);
            if (e != null && e.domain() == domain && e.iovaPage() == p && slots.compareAndSet(s, e, null)) {
                invalidatedEntries.increment();
            }
        }
    }

    /**
     * Domain-selective invalidation.
     *
     * @param domain domain id
     */
    public void invalidateDomain(int domain) {
        for (int s = 0; s < slots.length(); s++) {
            Entry e = slots.get(s);
            if (e != null && e.domain() == domain && slots.compareAndSet(s, e, null)) {
                invalidatedEntries.increment();
            }
        }
    }

    /** Global invalidation. */
    public void invalidateAll() {
        for (int s = 0; s < slots.length(); s++) {
            if (slots.getAndSet(s, null) != null) {
                invalidatedEntries.increment();
            }
        }
    }

    /** @return lookups that hit */
    public long hits() {
        return hits.sum();
    }

    /** @return lookups that missed */
    public long misses() {
        return misses.sum();
    }

    /** @return cached translations dropped by invalidations */
    public long invalidatedEntries() {
        return invalidatedEntries.sum();
    }
}
