package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.FlushEntry;

/**
 * A mapped IOVA range of a domain, as FreeBSD's {@code struct iommu_map_entry}: the range
 * {@code [start, end)} (the flush list's item) and, through {@link FlushEntry}, the link and
 * wait sequence the TLB flush list needs (the element). An entry may be empty
 * ({@code start == end}): it then owns no IOVA space and is never linked on a list.
 *
 * <p>Owned by the CPU that loads and unloads it until it is enqueued on the flush list;
 * then by the QI task.
 */
public final class IommuMapEntry extends FlushEntry {

    final DmarDomain domain;
    long start;
    long end;
    /** Set when its IOVA space has been returned; a second release is a double free. */
    boolean spaceFreed;

    IommuMapEntry(DmarDomain domain) {
        this.domain = domain;
    }

    /** @return the first IOVA of the range, bytes */
    public long start() {
        return start;
    }

    /** @return one past the last IOVA of the range, bytes */
    public long end() {
        return end;
    }

    /** @return the range's length, bytes (0 for an empty entry) */
    public long size() {
        return end - start;
    }

    /** @return the domain the range belongs to */
    public DmarDomain domain() {
        return domain;
    }

    @Override
    public String toString() {
        return String.format("iommu_map_entry[0x%x, 0x%x)", start, end);
    }
}
