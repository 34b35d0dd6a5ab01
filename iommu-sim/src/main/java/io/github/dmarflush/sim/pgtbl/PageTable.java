package io.github.dmarflush.sim.pgtbl;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A domain's second-level page table: a radix tree of 512-entry tables, 3, 4 or 5 levels for
 * 39-, 48- or 57-bit IOVAs, with 4 KiB leaves, as the VT-d second-level paging structures
 * that FreeBSD builds in {@code sys/x86/iommu/intel_idpgtbl.c} ({@code domain_map_buf},
 * {@code domain_unmap_buf}).
 *
 * <p>A leaf entry (PTE) holds the physical frame address in bits 51:12 and the read (bit 0)
 * and write (bit 1) permissions; 0 means not present.
 *
 * <p>Thread-safety: concurrent map, unmap and walk of <em>different</em> ranges are safe
 * (intermediate tables are installed with CAS, entries are atomic). Mapping and unmapping
 * the same range concurrently is a driver bug, as in the kernel.
 */
public final class PageTable {

    /** PTE read permission. */
    public static final long PTE_R = 1;
    /** PTE write permission. */
    public static final long PTE_W = 2;
    /** PTE frame address bits 51:12. */
    public static final long PTE_ADDR_MASK = 0x000F_FFFF_FFFF_F000L;

    private static final int PAGE_SHIFT = 12;
    private static final int BITS_PER_LEVEL = 9;
    private static final int ENTRIES = 1 << BITS_PER_LEVEL;

    private final int levels;
    private final AtomicReferenceArray<Object> root = new AtomicReferenceArray<>(ENTRIES);
    private final LongAdder tablePages = new LongAdder();

    /**
     * @param levels 3, 4 or 5
     * @throws IllegalArgumentException for another number of levels
     */
    public PageTable(int levels) {
        if (levels < 3 || levels > 5) {
            throw new IllegalArgumentException("page-table levels must be 3, 4 or 5, got " + levels);
        }
        this.levels = levels;
        tablePages.increment();
    }

    /** @return the IOVA width in bits: 39, 48 or 57 */
    public int addressWidth() {
        return PAGE_SHIFT + BITS_PER_LEVEL * levels;
    }

    /** @return the number of page-table pages allocated (the root included) */
    public long tablePages() {
        return tablePages.sum();
    }

    private int index(long iova, int level) {
        // level counts down from `levels` (root) to 1 (leaf)
        return (int) (iova >>> (PAGE_SHIFT + BITS_PER_LEVEL * (level - 1))) & (ENTRIES - 1);
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

    private AtomicLongArray leaf(long iova, boolean create) {
        AtomicReferenceArray<Object> table = root;
        for (int level = levels; level > 1; level--) {
            int i = index(iova, level);
            Object child = table.get(i);
            if (child == null) {
                if (!create) {
                    return null;
                }
                Object fresh = level == 2 ? new AtomicLongArray(ENTRIES) : new AtomicReferenceArray<>(ENTRIES);
                if (table.compareAndSet(i, null, fresh)) {
                    tablePages.increment();
                    child = fresh;
                } else {
                    child = table.get(i);
                }
            }
            if (level == 2) {
                return (AtomicLongArray) child;
            }
            @SuppressWarnings("unchecked")
            AtomicReferenceArray<Object> next = (AtomicReferenceArray<Object>) child;
            table = next;
        }
        throw new AssertionError("unreachable");
    }

    /**
     * Maps {@code size} bytes at {@code iova} to the physically contiguous range at
     * {@code pa}, read and write.
     *
     * @param iova IOVA, bytes, 4 KiB aligned
     * @param pa physical address, bytes, 4 KiB aligned
     * @param size bytes, a multiple of 4 KiB
     * @throws IllegalArgumentException if the range is misaligned or outside the address width
     */
    public void map(long iova, long pa, long size) {
        checkRange(iova, size);
        for (long off = 0; off < size; off += 1L << PAGE_SHIFT) {
            AtomicLongArray l = leaf(iova + off, true);
            l.set(index(iova + off, 1), ((pa + off) & PTE_ADDR_MASK) | PTE_R | PTE_W);
        }
    }

    /**
     * Clears the entries of {@code size} bytes at {@code iova}. Leaves the IOTLB alone: the
     * caller must queue an invalidation before the range is reused.
     *
     * @param iova IOVA, bytes, 4 KiB aligned
     * @param size bytes, a multiple of 4 KiB
     * @throws IllegalArgumentException if the range is misaligned or outside the address width
     */
    public void unmap(long iova, long size) {
        checkRange(iova, size);
        for (long off = 0; off < size; off += 1L << PAGE_SHIFT) {
            AtomicLongArray l = leaf(iova + off, false);
            if (l != null) {
                l.set(index(iova + off, 1), 0);
            }
        }
    }

    /**
     * Walks the table for one IOVA.
     *
     * @param iova IOVA, bytes
     * @return the leaf PTE, or 0 if not present
     */
    public long walk(long iova) {
        if (iova < 0 || iova >= 1L << addressWidth()) {
            return 0;
        }
        AtomicLongArray l = leaf(iova, false);
        return l == null ? 0 : l.get(index(iova, 1));
    }
}
