package io.github.dmarflush.sim.busdma;

import io.github.dmarflush.sim.driver.CallStack;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import io.github.dmarflush.sim.driver.InvalidationMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The busdma path of one device behind a DMAR unit, as FreeBSD's
 * {@code sys/dev/iommu/busdma_iommu.c}: tags, maps, scatter-gather loads
 * ({@code iommu_bus_dmamap_load_something1} over {@code iommu_gas_map} and
 * {@code domain_map_buf}) and unloads ({@code iommu_bus_dmamap_unload} →
 * {@code iommu_domain_unload}).
 *
 * <p>A load cuts the buffer into segments of at most the tag's {@code maxsegsz}; each segment
 * gets its own IOVA range (a map entry) under the tag's constraints, and its pages, which
 * may be scattered in physical memory, are mapped at consecutive IOVAs: that is the
 * scatter-gather an IOMMU gives a device. An unload hands all the map's entries to the
 * domain in one batch; {@link #unloadBatch} does the same for several maps at once (as a
 * driver's transmit-completion loop does), so batch coalescing gives an interrupting wait
 * descriptor only to every Nth entry and the last.
 *
 * <p>Thread-safe for distinct maps.
 */
public final class BusDma {

    private static final long PAGE = 4096;
    private static final long PAGE_MASK = PAGE - 1;

    private final DmarDomain domain;
    private final int requestId;
    private final CallStack unloadStack;
    private final LongAdder loads = new LongAdder();
    private final LongAdder unloads = new LongAdder();
    private final LongAdder segments = new LongAdder();
    private volatile DmaTraceSink traceSink;

    /**
     * @param domain the device's domain (the device must be attached to it)
     * @param requestId the device's bus:device.function
     * @param driverFrames the device driver's functions that call {@code bus_dmamap_unload},
     *     innermost first (e.g. {@code ixl_rxeof}); they end the stacks in the invalidation
     *     aggregation
     */
    public BusDma(DmarDomain domain, int requestId, String... driverFrames) {
        this.domain = Objects.requireNonNull(domain, "domain");
        this.requestId = requestId;
        CallStack inner = domain.unit().mode() == InvalidationMode.STRICT
                ? CallStack.of("iommu_qi_invalidate_sync", "iommu_domain_unload", "iommu_bus_dmamap_unload",
                        "bus_dmamap_unload")
                : CallStack.of("iommu_qi_invalidate_locked", "iommu_domain_unload", "iommu_bus_dmamap_unload",
                        "bus_dmamap_unload");
        this.unloadStack = inner.calledFrom(driverFrames);
    }

    /**
     * Reports this path's map and unmap events to {@code sink} (null to stop).
     *
     * @param sink the sink
     */
    public void setTraceSink(DmaTraceSink sink) {
        this.traceSink = sink;
    }

    private void traceUnmaps(List<IommuMapEntry> entries) {
        DmaTraceSink sink = traceSink;
        if (sink != null) {
            for (IommuMapEntry e : entries) {
                sink.unmap(e.start(), e.size());
            }
        }
    }

    /** @return the device's source id */
    public int requestId() {
        return requestId;
    }

    /** @return the device's domain */
    public DmarDomain domain() {
        return domain;
    }

    /**
     * @param tag the tag
     * @return a new, unloaded map ({@code bus_dmamap_create})
     */
    public BusDmaMap createMap(BusDmaTag tag) {
        return new BusDmaMap(Objects.requireNonNull(tag, "tag"));
    }

    /**
     * A map of an unconstrained tag for buffers of up to 64 KiB plus a page, in up to 32
     * segments of up to 64 KiB.
     *
     * @return a new, unloaded map
     */
    public BusDmaMap createMap() {
        return createMap(BusDmaTag.unconstrained(65536 + PAGE, 32, 65536));
    }

    /**
     * Destroys an unloaded map ({@code bus_dmamap_destroy}).
     *
     * @param map the map
     * @throws IllegalStateException if the map is loaded or already destroyed
     */
    public void destroyMap(BusDmaMap map) {
        if (map.loaded) {
            throw new IllegalStateException("bus_dmamap_destroy of a loaded map");
        }
        if (map.destroyed) {
            throw new IllegalStateException("bus_dmamap_destroy of a destroyed map");
        }
        map.destroyed = true;
    }

    private void checkLoadable(BusDmaMap map, long len) {
        if (map.destroyed) {
            throw new IllegalStateException("bus_dmamap_load on a destroyed map");
        }
        if (map.loaded) {
            throw new IllegalStateException("bus_dmamap_load on a map that is still loaded");
        }
        if (len < 0 || len > map.tag.maxsize()) {
            throw new IllegalArgumentException("buffer of " + len + " bytes; the tag allows 0.." + map.tag.maxsize());
        }
    }

    /**
     * Loads a physically contiguous buffer. As {@code bus_dmamap_load} of a kernel buffer.
     *
     * @param map an unloaded map
     * @param pa physical address of the buffer, bytes
     * @param len length, bytes (0 loads no segment)
     * @return the IOVA of the buffer's first byte (same offset in its page as {@code pa}); for
     *     a buffer longer than the tag's segment size, further segments follow in the map
     * @throws IllegalStateException if the map is loaded or IOVA space is exhausted
     * @throws IllegalArgumentException if the buffer is too large or needs too many segments
     */
    public long load(BusDmaMap map, long pa, long len) {
        checkLoadable(map, len);
        load(map, null, pa & ~PAGE_MASK, pa & PAGE_MASK, len);
        return map.nseg == 0 ? 0 : map.segAddr[0];
    }

    /**
     * Loads a buffer made of whole pages scattered in physical memory, starting {@code offset}
     * bytes into the first page. As {@code bus_dmamap_load_ma}.
     *
     * @param map an unloaded map
     * @param pages physical addresses of the buffer's pages, each 4 KiB aligned
     * @param offset offset of the first byte in {@code pages[0]}, 0..4095
     * @param len length, bytes
     * @return the number of segments
     * @throws IllegalArgumentException if the pages do not cover the buffer, or the buffer
     *     needs more segments than the tag allows
     */
    public int loadPages(BusDmaMap map, long[] pages, int offset, long len) {
        checkLoadable(map, len);
        if (offset < 0 || offset >= PAGE || (offset + len + PAGE_MASK) / PAGE > pages.length) {
            throw new IllegalArgumentException("offset " + offset + " and length " + len + " need more than "
                    + pages.length + " pages");
        }
        load(map, pages, 0, offset, len);
        return map.nseg;
    }

    /**
     * Loads a chain of physically contiguous pieces (an mbuf chain) into one map, each piece
     * into its own segments. As {@code bus_dmamap_load_mbuf_sg}.
     *
     * @param map an unloaded map
     * @param pas physical address of each piece
     * @param lens length of each piece, bytes
     * @return the number of segments
     */
    public int loadChain(BusDmaMap map, long[] pas, long[] lens) {
        long total = 0;
        for (long l : lens) {
            total += l;
        }
        checkLoadable(map, total);
        for (int i = 0; i < pas.length; i++) {
            if (lens[i] > 0) {
                appendSegments(map, null, pas[i] & ~PAGE_MASK, pas[i] & PAGE_MASK, lens[i]);
            }
        }
        map.loaded = true;
        loads.increment();
        return map.nseg;
    }

    private void load(BusDmaMap map, long[] pages, long basePa, long offset, long len) {
        map.nseg = 0;
        appendSegments(map, pages, basePa, offset, len);
        map.loaded = true;
        loads.increment();
    }

    /**
     * Cuts {@code [offset, offset + len)} of the buffer into segments of at most maxsegsz,
     * allocates an IOVA range for each and maps its pages. The buffer's page {@code k} is
     * {@code pages[k]}, or {@code basePa + k * 4096} when {@code pages} is null.
     */
    private void appendSegments(BusDmaMap map, long[] pages, long basePa, long offset, long len) {
        long p = offset;
        long left = len;
        while (left > 0) {
            if (map.nseg == map.tag.nsegments()) {
                failLoad(map);
                throw new IllegalArgumentException("buffer needs more than " + map.tag.nsegments()
                        + " segments (EFBIG)");
            }
            long chunk = Math.min(left, map.tag.maxsegsz());
            int firstPage = (int) (p >>> 12);
            int npages = (int) (((p + chunk + PAGE_MASK) >>> 12) - firstPage);
            long size = (long) npages << 12;
            IommuMapEntry e;
            try {
                e = domain.allocate(size, map.tag.constraints());
            } catch (RuntimeException ex) {
                failLoad(map);
                throw ex;
            }
            DmaTraceSink sink = traceSink;
            if (pages == null) {
                domain.pageTable().map(e.start(), basePa + ((long) firstPage << 12), size);
                if (sink != null) {
                    sink.map(e.start(), basePa + ((long) firstPage << 12), size);
                }
            } else if (contiguous(pages, firstPage, npages)) {
                domain.pageTable().map(e.start(), pages[firstPage], size);
                if (sink != null) {
                    sink.map(e.start(), pages[firstPage], size);
                }
            } else {
                domain.pageTable().mapPages(e.start(), pages, firstPage, npages);
                if (sink != null) {
                    for (int k = 0; k < npages; k++) {
                        sink.map(e.start() + ((long) k << 12), pages[firstPage + k], PAGE);
                    }
                }
            }
            map.entries.add(e);
            map.segAddr[map.nseg] = e.start() + (p & PAGE_MASK);
            map.segLen[map.nseg] = chunk;
            map.nseg++;
            segments.increment();
            p += chunk;
            left -= chunk;
        }
    }

    private static boolean contiguous(long[] pages, int from, int n) {
        for (int k = 1; k < n; k++) {
            if (pages[from + k] != pages[from] + ((long) k << 12)) {
                return false;
            }
        }
        return true;
    }

    /** A load that failed part-way gives back what it had (FreeBSD unloads the entries). */
    private void failLoad(BusDmaMap map) {
        if (!map.entries.isEmpty()) {
            domain.unload(map.entries, true, unloadStack);
            map.entries.clear();
        }
        map.nseg = 0;
    }

    /**
     * Unloads a map: clears its page-table entries, then queues the invalidations and links
     * the entries on the TLB flush list (or, in strict mode, waits for each invalidation and
     * frees the range). In deferred mode it returns before the invalidation completes; the QI
     * task frees the IOVA space later. As {@code bus_dmamap_unload} → {@code iommu_domain_unload}.
     *
     * @param map a loaded map
     * @throws IllegalStateException if the map is not loaded
     */
    public void unload(BusDmaMap map) {
        if (!map.loaded) {
            throw new IllegalStateException("bus_dmamap_unload on a map that is not loaded");
        }
        if (!map.entries.isEmpty()) {
            traceUnmaps(map.entries);
            domain.unload(map.entries, true, unloadStack);
        }
        map.entries.clear();
        map.nseg = 0;
        map.loaded = false;
        unloads.increment();
    }

    /**
     * Unloads several maps as one batch: all their entries go to the domain in one call, under
     * one hold of {@code dmarhw}, with batch coalescing across them. As a driver's completion
     * loop feeding FreeBSD's deferred unload task ({@code iommu_bus_task_dmamap}).
     *
     * @param maps loaded maps
     * @throws IllegalStateException if a map is not loaded
     */
    public void unloadBatch(Collection<BusDmaMap> maps) {
        List<IommuMapEntry> all = new ArrayList<>();
        for (BusDmaMap m : maps) {
            if (!m.loaded) {
                throw new IllegalStateException("bus_dmamap_unload on a map that is not loaded");
            }
            all.addAll(m.entries);
        }
        if (!all.isEmpty()) {
            traceUnmaps(all);
            domain.unload(all, true, unloadStack);
        }
        for (BusDmaMap m : maps) {
            m.entries.clear();
            m.nseg = 0;
            m.loaded = false;
            unloads.increment();
        }
    }

    /** @return buffers loaded */
    public long loads() {
        return loads.sum();
    }

    /** @return maps unloaded */
    public long unloads() {
        return unloads.sum();
    }

    /** @return segments produced by loads */
    public long segments() {
        return segments.sum();
    }

    /** @return the stack this device's unloads are counted under */
    public CallStack unloadStack() {
        return unloadStack;
    }
}
