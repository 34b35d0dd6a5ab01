package io.github.dmarflush.sim.hw;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The unit's IOTLB: a direct-mapped cache of translations tagged by domain id, filled on a
 * page walk and emptied only by invalidation descriptors. An entry maps one page of 4 KiB,
 * 2 MiB or 1 GiB, as the page table had it. A translation stays cached after its page-table
 * entry is cleared, exactly the hazard the flush list exists for: until the IOTLB
 * invalidation completes, a device may still reach the old physical page through the
 * unmapped IOVA.
 *
 * <p>Thread-safe: each slot is replaced atomically with an immutable entry, so a lookup never
 * sees a tag from one translation and a frame from another.
 */
public final class Iotlb {

    /**
     * One cached translation.
     *
     * @param domain domain id (the tag)
     * @param iovaBase IOVA of the page, aligned to its size
     * @param physBase physical address of the page
     * @param shift page shift: 12, 21 or 30
     */
    public record Entry(int domain, long iovaBase, long physBase, int shift) {

        /**
         * @param iova an address inside this page
         * @return the physical address it translates to
         */
        public long translate(long iova) {
            return physBase | (iova & ((1L << shift) - 1));
        }
    }

    private static final int[] SHIFTS = {12, 21, 30};

    private final AtomicReferenceArray<Entry> slots;
    private final int mask;
    private volatile boolean superpages;
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

    /** @return the number of slots */
    public int capacity() {
        return slots.length();
    }

    private int slot(int domain, long tag, int shift) {
        long h = (tag * 0x9E3779B97F4A7C15L) ^ ((long) domain * 0xC2B2AE3D27D4EB4FL) ^ shift;
        return (int) (h >>> 40) & mask;
    }

    /**
     * @param domain domain id
     * @param iova an IOVA, bytes
     * @return the cached translation of the page holding {@code iova}, or null on a miss
     */
    public Entry lookup(int domain, long iova) {
        int probes = superpages ? SHIFTS.length : 1;
        for (int k = 0; k < probes; k++) {
            int shift = SHIFTS[k];
            long base = iova & -(1L << shift);
            Entry e = slots.get(slot(domain, base >>> shift, shift));
            if (e != null && e.domain() == domain && e.shift() == shift && e.iovaBase() == base) {
                hits.increment();
                return e;
            }
        }
        misses.increment();
        return null;
    }

    /**
     * Caches a translation found by a page walk.
     *
     * @param domain domain id
     * @param iova an IOVA inside the page
     * @param physBase physical address of the page
     * @param shift the page's shift: 12, 21 or 30
     * @return the cached entry
     */
    public Entry fill(int domain, long iova, long physBase, int shift) {
        long base = iova & -(1L << shift);
        Entry e = new Entry(domain, base, physBase, shift);
        if (shift != 12) {
            superpages = true;
        }
        slots.set(slot(domain, base >>> shift, shift), e);
        return e;
    }

    private void drop(int s, Entry e) {
        if (slots.compareAndSet(s, e, null)) {
            invalidatedEntries.increment();
        }
    }

    /**
     * Page-selective invalidation: drops cached translations in {@code domain} that overlap
     * the {@code 2^am} pages from {@code iova}.
     *
     * @param domain domain id
     * @param iova first IOVA, aligned to {@code 2^am} pages
     * @param am address mask
     */
    public void invalidatePages(int domain, long iova, int am) {
        long start = iova;
        long end = iova + (1L << (am + 12)); // exclusive
        for (int shift : SHIFTS) {
            if (shift != 12 && !superpages) {
                break;
            }
            long first = start >>> shift;
            long last = (end - 1) >>> shift;
            if (last - first + 1 > slots.length()) {
                scan(domain, start, end);
                return;
            }
            for (long t = first; t <= last; t++) {
                int s = slot(domain, t, shift);
                Entry e = slots.get(s);
                if (e != null && e.domain() == domain && e.shift() == shift && e.iovaBase() >>> shift == t) {
                    drop(s, e);
                }
            }
        }
    }

    private void scan(int domain, long start, long end) {
        for (int s = 0; s < slots.length(); s++) {
            Entry e = slots.get(s);
            if (e != null && e.domain() == domain && e.iovaBase() < end && e.iovaBase() + (1L << e.shift()) > start) {
                drop(s, e);
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
            if (e != null && e.domain() == domain) {
                drop(s, e);
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

    /** @return cached translations now held */
    public int size() {
        int n = 0;
        for (int s = 0; s < slots.length(); s++) {
            if (slots.get(s) != null) {
                n++;
            }
        }
        return n;
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
