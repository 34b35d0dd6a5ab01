package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The DMA remapping path of one unit: the context table and its cache, the translation of a
 * device access through the IOTLB and the domain's page table, the DMA checker, and the
 * fault-recording registers (FRCD, FSTS.FRI, FSTS.PFO) that faults land in.
 *
 * <p>Thread-safe: the tables are concurrent maps, the IOTLB replaces slots atomically, and the
 * fault registers are atomic.
 */
public final class DmaRemapper {

    /** Number of fault-recording registers (CAP.NFR + 1). */
    public static final int FAULT_RECORDS = 8;

    /**
     * A context entry: the domain and page table a requester's DMA goes through.
     *
     * @param domainId the domain id (DID)
     * @param pageTable the domain's second-level page table
     */
    public record ContextEntry(int domainId, PageTable pageTable) {
    }

    private final PhysicalMemory memory;
    private final Iotlb iotlb;
    private final Runnable onOverflow;
    /** The context table as software wrote it: source id to entry. */
    private final Map<Integer, ContextEntry> contextTable = new ConcurrentHashMap<>();
    /** The context cache: present entries the hardware has fetched, until invalidated. */
    private final Map<Integer, ContextEntry> contextCache = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<DmaFault> frcd = new AtomicReferenceArray<>(FAULT_RECORDS);
    private final AtomicInteger fri = new AtomicInteger();
    private final LongAdder dmaPages = new LongAdder();
    private final List<DmaFault> faultLog = new ArrayList<>();
    private final LongAdder faults = new LongAdder();
    private final LongAdder faultsDropped = new LongAdder();

    /**
     * @param memory the physical memory devices write into
     * @param iotlb the unit's IOTLB
     * @param onOverflow sets FSTS.PFO when a fault finds its recording register busy
     */
    DmaRemapper(PhysicalMemory memory, Iotlb iotlb, Runnable onOverflow) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.iotlb = Objects.requireNonNull(iotlb, "iotlb");
        this.onOverflow = Objects.requireNonNull(onOverflow, "onOverflow");
    }

    // ---- context entries ----

    void setContext(int requestId, int domainId, PageTable pageTable) {
        contextTable.put(requestId, new ContextEntry(domainId, Objects.requireNonNull(pageTable, "pageTable")));
    }

    void clearContext(int requestId) {
        contextTable.remove(requestId);
    }

    boolean contextCached(int requestId) {
        return contextCache.containsKey(requestId);
    }

    /** A global context-cache invalidation. */
    void invalidateContextAll() {
        contextCache.clear();
    }

    /** A domain-selective context-cache invalidation. */
    void invalidateContextDomain(int did) {
        contextCache.values().removeIf(c -> c.domainId() == did);
    }

    /** A device-selective context-cache invalidation; FM n ignores the low n function bits. */
    void invalidateContextDevice(int sid, int fm) {
        int fnMask = fm == 0 ? 0 : (1 << fm) - 1;
        contextCache.keySet().removeIf(r -> (r & ~fnMask) == (sid & ~fnMask));
    }

    private ContextEntry context(int requestId) {
        ContextEntry c = contextCache.get(requestId);
        if (c == null) {
            c = contextTable.get(requestId);
            if (c != null) {
                contextCache.put(requestId, c); // only present entries are cached
            }
        }
        return c;
    }

    // ---- the DMA path ----

    /**
     * Translates one address for a DMA access and checks it (the DMA checker).
     *
     * @return the IOTLB entry to use, or the reason the access faults
     */
    private Object translate(ContextEntry ctx, long a, boolean write) {
        long perm = write ? PageTable.PTE_W : PageTable.PTE_R;
        long pte = ctx.pageTable().walk(a);
        Iotlb.Entry cached = iotlb.lookup(ctx.domainId(), a);
        if (cached != null) {
            // The DMA checker: a cached translation must agree with the page table.
            if ((pte & perm) == 0) {
                return DmaFault.Reason.STALE_UNMAPPED;
            }
            if (cached.translate(a) != PageTable.translate(pte, a)) {
                return DmaFault.Reason.STALE_REMAPPED;
            }
            return cached;
        }
        if ((pte & perm) == 0) {
            return DmaFault.Reason.NOT_PRESENT;
        }
        int shift = PageTable.pageShift(pte);
        return iotlb.fill(ctx.domainId(), a, PageTable.translate(pte, a & -(1L << shift)), shift);
    }

    /**
     * A device access of {@code len} bytes at {@code iova}: each page is translated through the
     * IOTLB (a miss walks the page table and fills it), checked against the page table, and
     * copied to or from physical memory (addresses beyond the simulated memory are translated
     * and checked but not stored). The first fault stops the transfer, is recorded, and
     * returned.
     */
    DmaFault dma(int requestId, long iova, byte[] buf, int off, int len, boolean write) {
        ContextEntry ctx = context(requestId);
        if (ctx == null) {
            return fault(new DmaFault(requestId, iova, write, DmaFault.Reason.NO_CONTEXT));
        }
        long end = iova + len;
        long a = iova;
        while (a < end) {
            Object t = translate(ctx, a, write);
            if (t instanceof DmaFault.Reason reason) {
                return fault(new DmaFault(requestId, a, write, reason));
            }
            Iotlb.Entry e = (Iotlb.Entry) t;
            long chunkEnd = Math.min(end, e.iovaBase() + (1L << e.shift()));
            long pa = e.translate(a);
            int n = (int) (chunkEnd - a);
            if (memory.contains(pa, n)) {
                if (write) {
                    memory.write(pa, buf, off + (int) (a - iova), n);
                } else {
                    memory.read(pa, buf, off + (int) (a - iova), n);
                }
            }
            dmaPages.add((chunkEnd - a + 4095) >>> 12);
            a = chunkEnd;
        }
        return null;
    }

    private DmaFault fault(DmaFault f) {
        faults.increment();
        synchronized (faultLog) {
            if (faultLog.size() < 16) {
                faultLog.add(f);
            }
        }
        int i = Math.floorMod(fri.getAndIncrement(), FAULT_RECORDS);
        if (!frcd.compareAndSet(i, null, f)) {
            faultsDropped.increment();
            onOverflow.run();
        }
        return f;
    }

    // ---- fault-recording registers ----

    DmaFault readFaultRecord(int index) {
        return frcd.get(index);
    }

    void clearFaultRecord(int index) {
        frcd.set(index, null);
    }

    /** @return whether some fault record holds an unread fault (FSTS.PPF) */
    boolean pendingFault() {
        for (int i = 0; i < FAULT_RECORDS; i++) {
            if (frcd.get(i) != null) {
                return true;
            }
        }
        return false;
    }

    /** @return FSTS.FRI, the record the next fault uses */
    int faultRecordIndex() {
        return fri.get() % FAULT_RECORDS;
    }

    // ---- statistics ----

    long dmaPages() {
        return dmaPages.sum();
    }

    long faults() {
        return faults.sum();
    }

    long faultsDropped() {
        return faultsDropped.sum();
    }

    List<DmaFault> faultLog() {
        synchronized (faultLog) {
            return List.copyOf(faultLog);
        }
    }
}
