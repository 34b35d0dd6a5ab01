package io.github.dmarflush.sim.driver;

import io.github.dmarflush.sim.gas.GasAllocator;
import io.github.dmarflush.sim.lock.LockstatMutex;
import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;

/**
 * A DMAR domain: an IOVA space (GAS), its page table, and the domain lock {@code iodom}
 * that guards the IOVA space, as FreeBSD's {@code struct dmar_domain} /
 * {@code struct iommu_domain}.
 *
 * <p>Thread-safe: allocation and freeing of IOVA space take {@code iodom}; page-table
 * updates of distinct ranges need no lock.
 */
public final class DmarDomain {

    private final int domainId;
    private final GasAllocator gas;
    private final PageTable pageTable;
    private final LockstatMutex iodom;
    private final Lock mapSite;
    private final Lock freeSite;
    private final LongAdder entriesFreed = new LongAdder();
    /**
     * Retired entry structures, reused by later loads, as FreeBSD's UMA zone
     * {@code iommu_map_entry_zone} caches them. Recycling makes a flush list that retires an
     * element too early visible: the element is reused while still linked.
     */
    private final ConcurrentLinkedQueue<IommuMapEntry> entryCache = new ConcurrentLinkedQueue<>();

    /**
     * @param domainId the domain id (DID) used in IOTLB descriptors
     * @param levels page-table levels (3, 4 or 5)
     * @param strategy the flush strategy: names the call site that frees IOVA space, as the
     *     two FreeBSD versions do it from different functions
     * @param spinNanos how long a contended {@code iodom} acquisition spins before blocking
     */
    public DmarDomain(int domainId, int levels, FlushStrategy strategy, long spinNanos) {
        this.domainId = domainId;
        this.pageTable = new PageTable(levels);
        this.gas = new GasAllocator(GasAllocator.PAGE_SIZE, 1L << pageTable.addressWidth());
        this.iodom = new LockstatMutex("iodom", spinNanos, TimeUnit.NANOSECONDS);
        this.mapSite = iodom.site("iommu_gas_map");
        this.freeSite = iodom.site(strategy == FlushStrategy.LOCKED ? "dmar_domain_free_entry" : "iommu_gas_free_space");
    }

    /** @return the domain id */
    public int domainId() {
        return domainId;
    }

    /** @return the page table */
    public PageTable pageTable() {
        return pageTable;
    }

    /** @return the domain lock */
    public LockstatMutex lock() {
        return iodom;
    }

    /**
     * Allocates IOVA space for a new entry, under {@code iodom}. As {@code iommu_gas_map}
     * (the allocation half; the caller fills the page table).
     *
     * @param size bytes, a positive multiple of 4 KiB
     * @return the new entry
     * @throws IllegalStateException if the IOVA space is exhausted
     */
    public IommuMapEntry allocate(long size) {
        IommuMapEntry e = entryCache.poll();
        if (e == null) {
            e = new IommuMapEntry(this);
        }
        e.spaceFreed = false;
        long start;
        mapSite.lock();
        try {
            start = gas.allocate(size);
        } finally {
            mapSite.unlock();
        }
        if (start < 0) {
            entryCache.offer(e);
            throw new IllegalStateException("domain " + domainId + ": IOVA space exhausted for " + size + " bytes");
        }
        e.start = start;
        e.end = start + size;
        return e;
    }

    /**
     * Returns an entry's IOVA space, under {@code iodom}. As {@code iommu_gas_free_space}
     * (called by the QI task once the entry's invalidation has completed).
     *
     * @param e the entry
     * @throws IllegalStateException on a double free
     */
    public void freeSpace(IommuMapEntry e) {
        freeSite.lock();
        try {
            if (e.spaceFreed) {
                throw new IllegalStateException("double free of " + e);
            }
            e.spaceFreed = true;
            gas.free(e.start, e.end - e.start);
        } finally {
            freeSite.unlock();
        }
    }

    /**
     * The entry structure itself is no longer used: it goes back to the entry cache for reuse.
     * As {@code iommu_gas_free_entry}.
     *
     * @param e the entry
     * @throws IllegalStateException if the entry is still on a flush list
     */
    public void freeEntry(IommuMapEntry e) {
        if (e.isOnList()) {
            throw new IllegalStateException("freeing " + e + " while it is still on the flush list");
        }
        entriesFreed.increment();
        entryCache.offer(e);
    }

    /** @return ranges currently allocated (taken under {@code iodom}) */
    public int allocatedRanges() {
        mapSite.lock();
        try {
            return gas.allocatedCount();
        } finally {
            mapSite.unlock();
        }
    }

    /** @return entry structures freed */
    public long entriesFreed() {
        return entriesFreed.sum();
    }
}
