package io.github.dmarflush.sim.busdma;

import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;

/**
 * The busdma load/unload path of one device behind one DMAR unit, as FreeBSD's
 * {@code sys/dev/iommu/busdma_iommu.c} ({@code iommu_bus_dmamap_load_something},
 * {@code iommu_bus_dmamap_unload}) over {@code iommu_gas_map},
 * {@code domain_map_buf}/{@code domain_unmap_buf} and {@code iommu_domain_unload}.
 *
 * <p>Load allocates IOVA space (under {@code iodom}) and fills the page table. Unload clears
 * the page table, then under {@code dmarhw} queues each entry's IOTLB invalidation and wait
 * sequence and links it on the TLB flush list; the QI task frees the IOVA space once the
 * invalidation has completed. Batch coalescing: of the entries unloaded together, only every
 * {@code batchCoalesce}-th and the last get a wait descriptor with an interrupt, as
 * {@code dmar_domain_unload_emit_wait}.
 *
 * <p>Thread-safe for distinct maps.
 */
public final class BusDma {

    private static final long PAGE_MASK = 4095;

    private final DmarUnit unit;
    private final DmarDomain domain;
    private final int batchCoalesce;
    /** The domain's running batch number, guarded by dmarhw ({@code domain->batch_no}). */
    private long batchNo;
    private final LongAdder loads = new LongAdder();
    private final LongAdder unloads = new LongAdder();

    /**
     * @param unit the DMAR unit the device is behind
     * @param domain the device's domain
     * @param batchCoalesce emit an interrupting wait descriptor every this many entries of a
     *     batch, and for the last; at least 1
     * @throws IllegalArgumentException if {@code batchCoalesce < 1}
     */
    public BusDma(DmarUnit unit, DmarDomain domain, int batchCoalesce) {
        this.unit = Objects.requireNonNull(unit, "unit");
        this.domain = Objects.requireNonNull(domain, "domain");
        if (batchCoalesce < 1) {
            throw new IllegalArgumentException("batch coalesce must be >= 1, got " + batchCoalesce);
        }
        this.batchCoalesce = batchCoalesce;
    }

    /** @return a new, unloaded map ({@code bus_dmamap_create}) */
    public BusDmaMap createMap() {
        return new BusDmaMap();
    }

    /**
     * Loads a physically contiguous buffer: allocates IOVA space for the pages it touches and
     * maps them. As {@code bus_dmamap_load} of one segment.
     *
     * @param map an unloaded map
     * @param pa physical address of the buffer, bytes
     * @param len length, bytes, at least 1
     * @return the IOVA of the buffer's first byte (same offset in its page as {@code pa})
     * @throws IllegalStateException if the map is already loaded or IOVA space is exhausted
     * @throws IllegalArgumentException if {@code len < 1}
     */
    public long load(BusDmaMap map, long pa, int len) {
        if (map.isLoaded()) {
            throw new IllegalStateException("bus_dmamap_load on a map that is still loaded");
        }
        if (len < 1) {
            throw new IllegalArgumentException("load length must be >= 1 byte, got " + len);
        }
        long offset = pa & PAGE_MASK;
        long size = (offset + len + PAGE_MASK) & ~PAGE_MASK;
        IommuMapEntry entry = domain.allocate(size);
        domain.pageTable().map(entry.start(), pa - offset, size);
        map.entries.add(entry);
        loads.increment();
        return entry.start() + offset;
    }

    /**
     * Unloads a map: clears its page-table entries, then queues the invalidations and links
     * the entries on the TLB flush list under {@code dmarhw}. Returns before the invalidation
     * completes; the IOVA space is freed later by the QI task. As {@code bus_dmamap_unload}
     * → {@code iommu_domain_unload}.
     *
     * @param map a loaded map
     * @throws IllegalStateException if the map is not loaded
     */
    public void unload(BusDmaMap map) {
        List<IommuMapEntry> entries = map.entries;
        if (entries.isEmpty()) {
            throw new IllegalStateException("bus_dmamap_unload on a map that is not loaded");
        }
        for (IommuMapEntry e : entries) {
            domain.pageTable().unmap(e.start(), e.end() - e.start());
        }
        Lock dmarhw = unit.unloadLock();
        dmarhw.lock();
        try {
            for (int i = 0; i < entries.size(); i++) {
                boolean last = i == entries.size() - 1;
                boolean emitWait = last || batchNo++ % batchCoalesce == 0;
                unit.invalidateLocked(entries.get(i), emitWait);
            }
        } finally {
            dmarhw.unlock();
        }
        entries.clear();
        unloads.increment();
    }

    /** @return buffers loaded */
    public long loads() {
        return loads.sum();
    }

    /** @return maps unloaded */
    public long unloads() {
        return unloads.sum();
    }
}
