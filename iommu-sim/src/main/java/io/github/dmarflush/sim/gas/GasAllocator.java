package io.github.dmarflush.sim.gas;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The IOVA space of one domain (FreeBSD's "guest address space", {@code iommu_gas.c}):
 * hands out page-aligned ranges lowest address first and takes them back.
 *
 * <p>Free space is kept as extents in a balanced tree ({@link TreeMap}, a red-black tree)
 * keyed by start address; allocation takes the lowest extent that fits, so a freed range
 * is reused soon, which is what makes a premature free visible to the DMA checker (the
 * range is remapped while a stale IOTLB entry still translates it). Freeing merges with the
 * neighbouring extents.
 *
 * <p>Not thread-safe: the caller holds the domain lock ({@code iodom}), as FreeBSD's
 * {@code iommu_gas_map} and {@code iommu_gas_free_space} do.
 */
public final class GasAllocator {

    /** Page size, bytes. */
    public static final long PAGE_SIZE = 4096;

    private final long lowest;
    private final long end;
    private final TreeMap<Long, Long> free = new TreeMap<>(); // start -> end (exclusive)
    private final Map<Long, Long> allocated = new HashMap<>(); // start -> end
    private long allocatedBytes;

    /**
     * @param lowest the lowest IOVA handed out, bytes, page aligned (FreeBSD keeps page 0
     *     reserved)
     * @param end one past the highest IOVA, bytes, page aligned (e.g. 2^48)
     * @throws IllegalArgumentException if the bounds are misaligned or empty
     */
    public GasAllocator(long lowest, long end) {
        if ((lowest & (PAGE_SIZE - 1)) != 0 || (end & (PAGE_SIZE - 1)) != 0 || Long.compareUnsigned(lowest, end) >= 0) {
            throw new IllegalArgumentException(String.format(
                    "IOVA space [0x%x, 0x%x) must be non-empty and page aligned", lowest, end));
        }
        this.lowest = lowest;
        this.end = end;
        free.put(lowest, end);
    }

    /**
     * Allocates {@code size} bytes at the lowest free address.
     *
     * @param size bytes, a positive multiple of 4 KiB
     * @return the start IOVA, or -1 if no free extent is large enough
     * @throws IllegalArgumentException if {@code size} is not a positive multiple of 4 KiB
     */
    public long allocate(long size) {
        if (size <= 0 || (size & (PAGE_SIZE - 1)) != 0) {
            throw new IllegalArgumentException("allocation size must be a positive multiple of 4 KiB, got " + size);
        }
        Iterator<Map.Entry<Long, Long>> it = free.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, Long> e = it.next();
            long start = e.getKey();
            long extentEnd = e.getValue();
            if (extentEnd - start >= size) {
                it.remove();
                if (extentEnd - start > size) {
                    free.put(start + size, extentEnd);
                }
                allocated.put(start, start + size);
                allocatedBytes += size;
                return start;
            }
        }
        return -1;
    }

    /**
     * Returns a range to the free space. As {@code iommu_gas_free_space}.
     *
     * @param start the start IOVA returned by {@link #allocate}
     * @param size its size
     * @throws IllegalStateException if the range is not allocated as given (a double free or
     *     a corrupted entry)
     */
    public void free(long start, long size) {
        Long allocEnd = allocated.get(start);
        if (allocEnd == null || allocEnd != start + size) {
            throw new IllegalStateException(String.format(
                    "free of [0x%x, 0x%x), which is not an allocated range (double free?)", start, start + size));
        }
        allocated.remove(start);
        allocatedBytes -= size;
        long newStart = start;
        long newEnd = start + size;
        Map.Entry<Long, Long> below = free.floorEntry(start);
        if (below != null && below.getValue() == start) {
            newStart = below.getKey();
            free.remove(below.getKey());
        }
        Long aboveEnd = free.get(newEnd);
        if (aboveEnd != null) {
            free.remove(newEnd);
            newEnd = aboveEnd;
        }
        free.put(newStart, newEnd);
    }

    /** @return the number of allocated ranges */
    public int allocatedCount() {
        return allocated.size();
    }

    /** @return bytes allocated */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** @return the number of free extents (fragmentation) */
    public int freeExtents() {
        return free.size();
    }

    /** @return the lowest IOVA */
    public long lowest() {
        return lowest;
    }

    /** @return one past the highest IOVA */
    public long end() {
        return end;
    }
}
