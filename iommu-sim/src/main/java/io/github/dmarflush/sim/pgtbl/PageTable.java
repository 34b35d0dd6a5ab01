package io.github.dmarflush.sim.pgtbl;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A domain's second-level page table: a radix tree of 512-entry tables, 3, 4 or 5 levels for
 * 39-, 48- or 57-bit IOVAs, with 4 KiB leaves and, where allowed, 2 MiB and 1 GiB superpages,
 * as the VT-d second-level paging structures that FreeBSD builds in
 * {@code sys/x86/iommu/intel_idpgtbl.c} ({@code domain_map_buf}, {@code domain_unmap_buf},
 * {@code domain_pgtbl_map_pte}).
 *
 * <h2>Entries</h2>
 * A leaf entry (PTE) holds the physical address in bits 51:12, read (bit 0) and write (bit 1)
 * permission, and for a superpage the PS bit (bit 7). The table also keeps the page size in
 * the software-available bits 53:52 (0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB), which hardware
 * ignores, so that {@link #walk} answers with one value. 0 means not present.
 *
 * <h2>Mapping</h2>
 * {@link #map} uses, for each part of the range, the largest page size that is enabled, that
 * both the IOVA and the physical address are aligned to, and that the remaining length
 * covers, as {@code domain_map_buf} does when the unit reports superpage support (CAP.SLLPS).
 * {@link #unmap} must cover a superpage whole (FreeBSD asserts the same).
 *
 * <h2>Counting</h2>
 * {@link #tablePages()} is the number of page-table pages in use, the root included: a page is
 * counted when it is installed and uncounted when a superpage replaces an empty one. Tables
 * are not freed when they become empty (FreeBSD frees them by reference count; the count here
 * is an upper bound of its figure).
 *
 * <p>Thread-safety: concurrent map, unmap and walk of <em>different</em> ranges are safe
 * (tables are installed with CAS, entries are atomic). Mapping and unmapping the same range
 * concurrently is a driver bug, as in the kernel.
 */
public final class PageTable {

    /** PTE read permission. */
    public static final long PTE_R = 1;
    /** PTE write permission. */
    public static final long PTE_W = 2;
    /** PTE page-size bit: the entry maps a superpage. */
    public static final long PTE_PS = 1L << 7;
    /** PTE physical address, bits 51:12. */
    public static final long PTE_ADDR_MASK = 0x000F_FFFF_FFFF_F000L;
    /** Software page-size code, bits 53:52. */
    private static final int PTE_SIZE_SHIFT = 52;

    /** Page shifts: 4 KiB, 2 MiB, 1 GiB. */
    public static final int SHIFT_4K = 12;
    /** 2 MiB page shift. */
    public static final int SHIFT_2M = 21;
    /** 1 GiB page shift. */
    public static final int SHIFT_1G = 30;

    private static final int BITS_PER_LEVEL = 9;
    private static final int ENTRIES = 1 << BITS_PER_LEVEL;

    private final int levels;
    private final boolean superpage2m;
    private final boolean superpage1g;
    private final AtomicReferenceArray<Object> root = new AtomicReferenceArray<>(ENTRIES);
    private final LongAdder tablePages = new LongAdder();
    private final LongAdder pages4k = new LongAdder();
    private final LongAdder pages2m = new LongAdder();
    private final LongAdder pages1g = new LongAdder();

    /**
     * A table with 4 KiB pages only.
     *
     * @param levels 3, 4 or 5
     * @throws IllegalArgumentException for another number of levels
     */
    public PageTable(int levels) {
        this(levels, false, false);
    }

    /**
     * @param levels 3, 4 or 5
     * @param superpage2m whether {@link #map} may use 2 MiB pages
     * @param superpage1g whether {@link #map} may use 1 GiB pages
     * @throws IllegalArgumentException for another number of levels
     */
    public PageTable(int levels, boolean superpage2m, boolean superpage1g) {
        if (levels < 3 || levels > 5) {
            throw new IllegalArgumentException("page-table levels must be 3, 4 or 5, got " + levels);
        }
        this.levels = levels;
        this.superpage2m = superpage2m;
        this.superpage1g = superpage1g;
        tablePages.increment();
    }

    /**
     * @param levels 3, 4 or 5
     * @return the address width in bits: 39, 48 or 57
     */
    public static int addressWidth(int levels) {
        return SHIFT_4K + BITS_PER_LEVEL * levels;
    }

    /** @return the IOVA width in bits: 39, 48 or 57 */
    public int addressWidth() {
        return addressWidth(levels);
    }

    /** @return the number of levels */
    public int levels() {
        return levels;
    }

    /** @return the number of page-table pages in use (the root included) */
    public long tablePages() {
        return tablePages.sum();
    }

    /**
     * @param shift {@link #SHIFT_4K}, {@link #SHIFT_2M} or {@link #SHIFT_1G}
     * @return leaf entries of that size installed by {@link #map} so far
     */
    public long pagesMapped(int shift) {
        return switch (shift) {
            case SHIFT_4K -> pages4k.sum();
            case SHIFT_2M -> pages2m.sum();
            case SHIFT_1G -> pages1g.sum();
            default -> throw new IllegalArgumentException("no pages of shift " + shift);
        };
    }

    /**
     * @param pte a leaf entry from {@link #walk}, not 0
     * @return the page shift of the entry: 12, 21 or 30
     */
    public static int pageShift(long pte) {
        return SHIFT_4K + BITS_PER_LEVEL * (int) ((pte >>> PTE_SIZE_SHIFT) & 3);
    }

    /**
     * @param pte a leaf entry from {@link #walk}, not 0
     * @param iova an address inside the page the entry maps
     * @return the physical address {@code iova} translates to
     */
    public static long translate(long pte, long iova) {
        long pageMask = (1L << pageShift(pte)) - 1;
        return (pte & PTE_ADDR_MASK & ~pageMask) | (iova & pageMask);
    }

    private static int index(long iova, int level) {
        // level counts down from `levels` (root) to 1 (4 KiB leaves)
        return (int) (iova >>> (SHIFT_4K + BITS_PER_LEVEL * (level - 1))) & (ENTRIES - 1);
    }

    private static long leafPte(long pa, int level) {
        long pte = (pa & PTE_ADDR_MASK) | PTE_R | PTE_W | ((long) (level - 1) << PTE_SIZE_SHIFT);
        return level > 1 ? pte | PTE_PS : pte;
    }

    private void checkRange(long iova, long size) {
        if ((iova & 0xFFF) != 0 || (size & 0xFFF) != 0) {
            throw new IllegalArgumentException(String.format(
                    "IOVA 0x%x and size 0x%x must be 4 KiB aligned", iova, size));
        }
        long limit = 1L << addressWidth();
        if (iova < 0 || size < 0 || iova + size > limit || iova + size < iova) {
            throw new IllegalArgumentException(String.format(
                    "range [0x%x, 0x%x) exceeds the %d-bit address width", iova, iova + size, addressWidth()));
        }
    }

    /**
     * Descends to the table of {@code level} that holds {@code iova}, creating tables on the
     * way when {@code create}. Returns null if a table is missing (and not created) or a
     * superpage sits above {@code level}.
     */
    private Object tableAt(long iova, int level, boolean create) {
        AtomicReferenceArray<Object> table = root;
        for (int l = levels; l > level; l--) {
            int i = index(iova, l);
            Object child = table.get(i);
            if (child == null) {
                if (!create) {
                    return null;
                }
                Object fresh = l == 2 ? new AtomicLongArray(ENTRIES) : new AtomicReferenceArray<>(ENTRIES);
                if (table.compareAndSet(i, null, fresh)) {
                    tablePages.increment();
                    child = fresh;
                } else {
                    child = table.get(i);
                }
            }
            if (child instanceof Long) {
                if (create) {
                    throw new IllegalStateException(String.format(
                            "IOVA 0x%x is inside a superpage that is still mapped", iova));
                }
                return null;
            }
            if (l - 1 == level) {
                return child;
            }
            @SuppressWarnings("unchecked")
            AtomicReferenceArray<Object> next = (AtomicReferenceArray<Object>) child;
            table = next;
        }
        return table;
    }

    private static boolean isEmpty(Object table) {
        if (table instanceof AtomicLongArray a) {
            for (int i = 0; i < ENTRIES; i++) {
                if (a.get(i) != 0) {
                    return false;
                }
            }
            return true;
        }
        @SuppressWarnings("unchecked")
        AtomicReferenceArray<Object> r = (AtomicReferenceArray<Object>) table;
        for (int i = 0; i < ENTRIES; i++) {
            Object o = r.get(i);
            if (o != null && (o instanceof Long || !isEmpty(o))) {
                return false;
            }
        }
        return true;
    }

    private static long countTables(Object table) {
        if (table instanceof AtomicLongArray) {
            return 1;
        }
        @SuppressWarnings("unchecked")
        AtomicReferenceArray<Object> r = (AtomicReferenceArray<Object>) table;
        long n = 1;
        for (int i = 0; i < ENTRIES; i++) {
            Object o = r.get(i);
            if (o != null && !(o instanceof Long)) {
                n += countTables(o);
            }
        }
        return n;
    }

    /** Installs a superpage of {@code level} (2 or 3) at {@code iova}; false if a non-empty table is in the way. */
    private boolean mapSuper(long iova, long pa, int level) {
        @SuppressWarnings("unchecked")
        AtomicReferenceArray<Object> table = (AtomicReferenceArray<Object>) tableAt(iova, level, true);
        int i = index(iova, level);
        Object old = table.get(i);
        if (old instanceof Long) {
            throw new IllegalStateException(String.format("IOVA 0x%x is already mapped by a superpage", iova));
        }
        if (old != null && !isEmpty(old)) {
            return false;
        }
        if (!table.compareAndSet(i, old, leafPte(pa, level))) {
            return false;
        }
        if (old != null) {
            tablePages.add(-countTables(old));
        }
        (level == 2 ? pages2m : pages1g).increment();
        return true;
    }

    private void map4k(long iova, long pa) {
        AtomicLongArray pt = (AtomicLongArray) tableAt(iova, 1, true);
        pt.set(index(iova, 1), leafPte(pa, 1));
        pages4k.increment();
    }

    /**
     * Maps {@code size} bytes at {@code iova} to the physically contiguous range at
     * {@code pa}, read and write, with the largest enabled page sizes that fit.
     *
     * @param iova IOVA, bytes, 4 KiB aligned
     * @param pa physical address, bytes, 4 KiB aligned
     * @param size bytes, a multiple of 4 KiB
     * @throws IllegalArgumentException if the range is misaligned or outside the address width
     */
    public void map(long iova, long pa, long size) {
        checkRange(iova, size);
        long off = 0;
        while (off < size) {
            long a = iova + off;
            long p = pa + off;
            long left = size - off;
            if (superpage1g && ((a | p) & ((1L << SHIFT_1G) - 1)) == 0 && left >= 1L << SHIFT_1G
                    && mapSuper(a, p, 3)) {
                off += 1L << SHIFT_1G;
            } else if (superpage2m && ((a | p) & ((1L << SHIFT_2M) - 1)) == 0 && left >= 1L << SHIFT_2M
                    && mapSuper(a, p, 2)) {
                off += 1L << SHIFT_2M;
            } else {
                map4k(a, p);
                off += 1L << SHIFT_4K;
            }
        }
    }

    /**
     * Maps consecutive 4 KiB pages at {@code iova} to the given, possibly scattered, physical
     * pages: the IOMMU's scatter-gather, as {@code domain_map_buf} with a page array.
     *
     * @param iova IOVA of the first page, 4 KiB aligned
     * @param physPages physical addresses of the pages, each 4 KiB aligned
     * @param from first index in {@code physPages}
     * @param count number of pages
     * @throws IllegalArgumentException if an address is misaligned or the range exceeds the width
     */
    public void mapPages(long iova, long[] physPages, int from, int count) {
        checkRange(iova, (long) count << SHIFT_4K);
        for (int k = 0; k < count; k++) {
            long p = physPages[from + k];
            if ((p & 0xFFF) != 0) {
                throw new IllegalArgumentException(String.format("physical page 0x%x is not 4 KiB aligned", p));
            }
            map4k(iova + ((long) k << SHIFT_4K), p);
        }
    }

    /**
     * Clears the entries of {@code size} bytes at {@code iova}. Leaves the IOTLB alone: the
     * caller must queue an invalidation before the range is reused.
     *
     * @param iova IOVA, bytes, 4 KiB aligned
     * @param size bytes, a multiple of 4 KiB
     * @throws IllegalArgumentException if the range is misaligned, outside the address width,
     *     or covers only part of a superpage
     */
    public void unmap(long iova, long size) {
        checkRange(iova, size);
        long off = 0;
        while (off < size) {
            long a = iova + off;
            int step = SHIFT_4K;
            AtomicReferenceArray<Object> table = root;
            for (int l = levels; l >= 2; l--) {
                int i = index(a, l);
                Object child = table.get(i);
                if (child == null) {
                    break;
                }
                if (child instanceof Long) {
                    int shift = SHIFT_4K + BITS_PER_LEVEL * (l - 1);
                    if ((a & ((1L << shift) - 1)) != 0 || size - off < 1L << shift) {
                        throw new IllegalArgumentException(String.format(
                                "unmap of [0x%x, 0x%x) splits the %s page at 0x%x", iova, iova + size,
                                shift == SHIFT_2M ? "2 MiB" : "1 GiB", a & ~((1L << shift) - 1)));
                    }
                    table.set(i, null);
                    step = shift;
                    break;
                }
                if (l == 2) {
                    ((AtomicLongArray) child).set(index(a, 1), 0);
                    break;
                }
                @SuppressWarnings("unchecked")
                AtomicReferenceArray<Object> next = (AtomicReferenceArray<Object>) child;
                table = next;
            }
            off += 1L << step;
        }
    }

    /**
     * Walks the table for one IOVA, as the hardware's page walk.
     *
     * @param iova IOVA, bytes
     * @return the leaf PTE (see the class notes), or 0 if not present
     */
    public long walk(long iova) {
        if (iova < 0 || iova >= 1L << addressWidth()) {
            return 0;
        }
        AtomicReferenceArray<Object> table = root;
        for (int l = levels; l >= 2; l--) {
            Object child = table.get(index(iova, l));
            if (child == null) {
                return 0;
            }
            if (child instanceof Long pte) {
                return pte;
            }
            if (l == 2) {
                return ((AtomicLongArray) child).get(index(iova, 1));
            }
            @SuppressWarnings("unchecked")
            AtomicReferenceArray<Object> next = (AtomicReferenceArray<Object>) child;
            table = next;
        }
        throw new AssertionError("unreachable");
    }
}
