package io.github.dmarflush.sim.gas;

/**
 * Where a device may have its IOVA ranges: the address constraints of a busdma tag
 * ({@code bus_dma_tag_create}'s {@code alignment}, {@code boundary}, {@code lowaddr},
 * {@code highaddr}), as FreeBSD's GAS honours them in {@code iommu_gas_find_space}.
 *
 * <p>Addresses are unsigned 64-bit values: {@code lowaddr = -1L} means "all of the space"
 * ({@code BUS_SPACE_MAXADDR}), not "below zero".
 *
 * <ul>
 *   <li>{@code lowaddr}: the highest address the device reaches, <em>inclusive</em> (busdma's
 *       meaning: a 32-bit device has {@code lowaddr = 0xFFFFFFFF}). A range in the lower
 *       region has its last byte at or below it.</li>
 *   <li>{@code highaddr}: together with {@code lowaddr}, the window {@code (lowaddr,
 *       highaddr]} is excluded; a range may also lie wholly above {@code highaddr}. With
 *       {@code highaddr = -1L} there is no upper region.</li>
 *   <li>{@code alignment}: a power of two, at least 4 KiB.</li>
 *   <li>{@code boundary}: 0 for none, or a power of two at least 4 KiB that no range may
 *       cross.</li>
 * </ul>
 *
 * @param alignment start alignment, bytes, a power of two &gt;= 4096
 * @param boundary boundary not to cross, bytes, 0 or a power of two &gt;= 4096
 * @param lowaddr highest reachable address of the lower region, inclusive, unsigned
 * @param highaddr end of the excluded window, inclusive, unsigned
 */
public record GasConstraints(long alignment, long boundary, long lowaddr, long highaddr) {

    /** No constraint: page alignment, no boundary, the whole space. */
    public static final GasConstraints NONE = new GasConstraints(GasAllocator.PAGE_SIZE, 0, -1L, -1L);

    /**
     * @throws IllegalArgumentException if alignment or boundary is not a power of two of at
     *     least a page, or {@code highaddr} is below {@code lowaddr} (unsigned)
     */
    public GasConstraints {
        if (alignment < GasAllocator.PAGE_SIZE || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two >= 4096, got " + alignment);
        }
        if (boundary != 0 && (boundary < GasAllocator.PAGE_SIZE || Long.bitCount(boundary) != 1)) {
            throw new IllegalArgumentException("boundary must be 0 or a power of two >= 4096, got " + boundary);
        }
        if (Long.compareUnsigned(highaddr, lowaddr) < 0) {
            throw new IllegalArgumentException(String.format(
                    "highaddr 0x%x is below lowaddr 0x%x", highaddr, lowaddr));
        }
    }

    /**
     * @param lowaddr the highest address a device reaches, inclusive
     * @return page alignment, no boundary, everything above {@code lowaddr} excluded
     */
    public static GasConstraints below(long lowaddr) {
        return new GasConstraints(GasAllocator.PAGE_SIZE, 0, lowaddr, -1L);
    }
}
