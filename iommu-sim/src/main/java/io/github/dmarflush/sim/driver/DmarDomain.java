package io.github.dmarflush.sim.driver;

import io.github.dmarflush.sim.gas.GasAllocator;
import io.github.dmarflush.sim.gas.GasConstraints;
import io.github.dmarflush.sim.lock.MutexFactory;
import io.github.dmarflush.sim.lock.SimMutex;
import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;

/**
 * A DMAR domain: an IOVA space (GAS), its page table, the domain lock {@code iodom} that
 * guards the IOVA space, and the unload path into its unit, as FreeBSD's
 * {@code struct dmar_domain} / {@code struct iommu_domain} with {@code iommu_domain_unload}.
 * A domain belongs to one unit; devices are attached to it through context entries.
 *
 * <p>Thread-safe: allocation and freeing of IOVA space take {@code iodom}; page-table
 * updates of distinct ranges need no lock; the unload path takes {@code dmarhw}.
 */
public final class DmarDomain {

    private final DmarUnit unit;
    private final int domainId;
    private final GasAllocator gas;
    private final PageTable pageTable;
    private final SimMutex iodom;
    private final Lock mapSite;
    private final Lock mapRegionSite;
    private final Lock freeSite;
    private final Lock syncFreeSite;
    private final int batchCoalesce;
    /** {@code domain->batch_no}: entries unloaded so far, guarded by dmarhw. */
    private long batchNo;
    private final LongAdder entriesFreed = new LongAdder();
    private final LongAdder emptyUnloads = new LongAdder();
    private final LongAdder unloadedEntries = new LongAdder();
    private final LongAdder rangesFreed = new LongAdder();
    /**
     * Retired entry structures, reused by later loads, as FreeBSD's UMA zone
     * {@code iommu_map_entry_zone} caches them. Recycling makes a flush list that retires an
     * element too early visible: the element is reused while still linked.
     */
    private final ConcurrentLinkedQueue<IommuMapEntry> entryCache = new ConcurrentLinkedQueue<>();

    /**
     * @param unit the DMAR unit the domain's devices are behind
     * @param domainId the domain id (DID) used in IOTLB descriptors, 1..65535
     * @param levels page-table levels (3, 4 or 5: a 39-, 48- or 57-bit IOVA space)
     * @param superpages whether the page table may use 2 MiB and 1 GiB pages
     * @param batchCoalesce an interrupting wait descriptor for every this many unloaded
     *     entries, and for the last of each unload ({@code hw.iommu.qi_batch_coalesce})
     * @param mutexes makes {@code iodom} for the run's clock
     */
    public DmarDomain(DmarUnit unit, int domainId, int levels, boolean superpages, int batchCoalesce,
            MutexFactory mutexes) {
        this.unit = Objects.requireNonNull(unit, "unit");
        if (domainId < 1 || domainId > 0xFFFF) {
            throw new IllegalArgumentException("domain id must be 1..65535, got " + domainId);
        }
        if (batchCoalesce < 1) {
            throw new IllegalArgumentException("batch coalesce must be >= 1, got " + batchCoalesce);
        }
        this.domainId = domainId;
        this.batchCoalesce = batchCoalesce;
        this.pageTable = new PageTable(levels, superpages, superpages);
        this.gas = new GasAllocator(GasAllocator.PAGE_SIZE, 1L << pageTable.addressWidth(), true);
        this.iodom = mutexes.create("iodom");
        this.mapSite = iodom.site("iommu_gas_map");
        this.mapRegionSite = iodom.site("iommu_gas_map_region");
        this.freeSite = iodom.site(unit.strategy() == FlushStrategy.LOCKED
                ? "dmar_domain_free_entry" : "iommu_gas_free_space");
        this.syncFreeSite = iodom.site("iommu_domain_free_entry");
    }

    /**
     * A domain on host threads: {@code iodom} is a real lock spinning at most
     * {@code spinNanos} before it blocks.
     *
     * @param unit the DMAR unit
     * @param domainId the domain id, 1..65535
     * @param levels page-table levels
     * @param superpages whether superpages may be used
     * @param batchCoalesce an interrupting wait descriptor every this many unloaded entries
     * @param spinNanos how long a contended {@code iodom} acquisition spins before blocking
     */
    public DmarDomain(DmarUnit unit, int domainId, int levels, boolean superpages, int batchCoalesce,
            long spinNanos) {
        this(unit, domainId, levels, superpages, batchCoalesce, MutexFactory.lockstat(spinNanos));
    }

    /** @return the domain id */
    public int domainId() {
        return domainId;
    }

    /** @return the unit */
    public DmarUnit unit() {
        return unit;
    }

    /** @return the page table */
    public PageTable pageTable() {
        return pageTable;
    }

    /** @return the domain lock */
    public SimMutex lock() {
        return iodom;
    }

    /**
     * Attaches a device: writes its context entry in the unit. As {@code dmar_get_ctx_for_dev}
     * → {@code ctx_id_entry_init}.
     *
     * @param requestId the device's bus:device.function
     */
    public void attach(int requestId) {
        unit.hardware().setContext(requestId, domainId, pageTable);
    }

    private IommuMapEntry newEntry() {
        IommuMapEntry e = entryCache.poll();
        if (e == null) {
            e = new IommuMapEntry(this);
        }
        e.spaceFreed = false;
        return e;
    }

    /**
     * Allocates IOVA space for a new entry, under {@code iodom}. As {@code iommu_gas_map}
     * (the allocation half; the caller fills the page table).
     *
     * @param size bytes, a positive multiple of 4 KiB
     * @param constraints the tag's address constraints
     * @return the new entry
     * @throws IllegalStateException if no IOVA range satisfies the request
     */
    public IommuMapEntry allocate(long size, GasConstraints constraints) {
        IommuMapEntry e = newEntry();
        long start;
        mapSite.lock();
        try {
            start = gas.allocate(size, constraints);
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
     * Allocates an entry at a range the caller chose (a trace being replayed). As
     * {@code iommu_gas_map_region}.
     *
     * @param start first IOVA, page aligned
     * @param size bytes, a multiple of 4 KiB; 0 gives an empty entry that owns no space
     * @return the entry, or null if the range is taken or outside the space
     */
    public IommuMapEntry allocateAt(long start, long size) {
        IommuMapEntry e = newEntry();
        if (size > 0) {
            boolean ok;
            mapRegionSite.lock();
            try {
                ok = gas.reserve(start, size, false);
            } finally {
                mapRegionSite.unlock();
            }
            if (!ok) {
                entryCache.offer(e);
                return null;
            }
        }
        e.start = start;
        e.end = start + size;
        return e;
    }

    /**
     * Unloads entries: clears their page-table entries, then either queues their
     * invalidations and links them on the unit's flush list under {@code dmarhw} (deferred
     * mode; the QI task frees the space later), or invalidates each synchronously and frees
     * it (strict mode). As {@code iommu_domain_unload}.
     *
     * <p>Batch coalescing, as {@code dmar_domain_unload_emit_wait}: an entry gets its own
     * interrupting wait descriptor if the domain's running count is a multiple of the batch
     * size, or if it is the last non-empty entry of this call; the others get a sequence
     * number that a later wait descriptor's status write covers. Empty entries take no part:
     * they are freed at once (see {@link DmarUnit}'s notes).
     *
     * @param entries the entries; the list is not modified
     * @param cansleep whether a strict wait may sleep
     * @param stack the caller's stack, for the aggregation of invalidation requests
     */
    public void unload(List<IommuMapEntry> entries, boolean cansleep, CallStack stack) {
        int nonEmpty = 0;
        for (IommuMapEntry e : entries) {
            if (e.domain != this) {
                throw new IllegalArgumentException(e + " belongs to domain " + e.domain.domainId
                        + ", not " + domainId);
            }
            if (e.size() > 0) {
                pageTable.unmap(e.start, e.size());
                nonEmpty++;
            }
        }
        if (nonEmpty > 0) {
            if (unit.mode() == InvalidationMode.STRICT) {
                for (IommuMapEntry e : entries) {
                    if (e.size() > 0) {
                        unit.invalidateSync(e, cansleep, stack);
                        freeSpace(e, syncFreeSite);
                        freeEntry(e);
                    }
                }
            } else {
                Lock dmarhw = unit.unloadLock();
                dmarhw.lock();
                try {
                    int seen = 0;
                    for (IommuMapEntry e : entries) {
                        if (e.size() == 0) {
                            continue;
                        }
                        boolean last = ++seen == nonEmpty;
                        boolean emitWait = batchNo++ % batchCoalesce == 0 || last;
                        unit.invalidateLocked(e, emitWait, stack);
                    }
                } finally {
                    dmarhw.unlock();
                }
            }
            unloadedEntries.add(nonEmpty);
        }
        for (IommuMapEntry e : entries) {
            if (e.size() == 0) {
                emptyUnloads.increment();
                freeEntry(e);
            }
        }
    }

    /**
     * Returns an entry's IOVA space, under {@code iodom}. As {@code iommu_gas_free_space}
     * (called by the QI task once the entry's invalidation has completed).
     *
     * @param e the entry
     * @throws IllegalStateException on a double free
     */
    public void freeSpace(IommuMapEntry e) {
        freeSpace(e, freeSite);
    }

    private void freeSpace(IommuMapEntry e, Lock site) {
        site.lock();
        try {
            if (e.spaceFreed) {
                throw new IllegalStateException("double free of " + e);
            }
            e.spaceFreed = true;
            if (e.size() > 0) {
                gas.free(e.start, e.size());
                rangesFreed.increment();
            }
        } finally {
            site.unlock();
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

    /**
     * Gives back an entry that was never loaded into the page table (a load that failed
     * half-way): frees its space and the entry without any invalidation.
     *
     * @param e the entry
     */
    public void discard(IommuMapEntry e) {
        freeSpace(e, mapSite);
        freeEntry(e);
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

    /**
     * Runs {@code check} on the allocator under {@code iodom}. For tests and end-of-run checks.
     *
     * @param check what to run
     */
    public void withGas(java.util.function.Consumer<GasAllocator> check) {
        mapSite.lock();
        try {
            check.accept(gas);
        } finally {
            mapSite.unlock();
        }
    }

    /** @return entry structures freed */
    public long entriesFreed() {
        return entriesFreed.sum();
    }

    /** @return empty entries unloaded (freed at once, nothing queued) */
    public long emptyUnloads() {
        return emptyUnloads.sum();
    }

    /** @return IOVA ranges given back to the allocator (by the QI task, a strict unload, or a failed load) */
    public long rangesFreed() {
        return rangesFreed.sum();
    }

    /** @return non-empty entries unloaded */
    public long unloadedEntries() {
        return unloadedEntries.sum();
    }
}
