package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * One DMAR unit's hardware: its registers, the invalidation-queue engine that runs on its
 * own thread, the IOTLB, the context entries, and the DMA path devices use.
 *
 * <h2>Registers (the subset the queued-invalidation path uses)</h2>
 * <ul>
 *   <li>GCMD/GSTS: {@link #enableQi()} sets GCMD.QIE; GSTS.QIES follows.</li>
 *   <li>IQA: {@link #writeIqa(QueueMemory)}: the queue base (here, the memory object) and
 *       its size.</li>
 *   <li>IQH ({@link #readIqh()}): byte offset of the next descriptor the engine will read;
 *       only the engine writes it. IQT ({@link #writeIqt(long)}): byte offset one past the
 *       last descriptor software has published. Both wrap at the queue size.</li>
 *   <li>ICS ({@link #readIcs()}, {@link #writeIcs(int)}): bit 0 IWC, set by the engine when
 *       it completes a wait descriptor with IF, written 1 to clear.</li>
 *   <li>IECTL ({@link #writeIectl(int)}): bit 31 IM masks the completion interrupt; bit 30
 *       IP records one that arrived while masked.</li>
 *   <li>FSTS ({@link #readFsts()}): bit 4 IQE, set on an invalid IQT write.</li>
 * </ul>
 *
 * <h2>The engine</h2>
 * A thread consumes descriptors in ring order from IQH to IQT: IOTLB invalidations drop
 * cached translations; a wait descriptor with SW performs the status write to the address in
 * its upper quadword; with IF it sets ICS.IWC, and raises the completion interrupt only if
 * IWC went from 0 to 1 (and IECTL.IM is clear). IQH advances past a descriptor only once it
 * is done. The engine parks when the queue is empty; an IQT write wakes it.
 *
 * <h2>Thread-safety</h2>
 * Registers are volatile or atomic; any thread may read them. Software serializes its own
 * register writes under the unit lock, as a driver does.
 */
public final class DmarHardware implements AutoCloseable {

    /** ICS: Invalidation Wait Descriptor Complete. */
    public static final int ICS_IWC = 1;
    /** IECTL: interrupt mask. */
    public static final int IECTL_IM = 1 << 31;
    /** IECTL: interrupt pending. */
    public static final int IECTL_IP = 1 << 30;
    /** FSTS: invalidation queue error. */
    public static final int FSTS_IQE = 1 << 4;

    private static final int PAGE_SHIFT = 12;
    /** How long the engine polls an empty queue before it parks, ns. */
    private static final long IDLE_POLL_NANOS = 50_000;

    private final String name;
    private final Iotlb iotlb;
    private final PhysicalMemory memory;
    private final long latencyNanos;
    private final Map<Long, IntConsumer> statusWords = new ConcurrentHashMap<>();
    private final Map<Integer, ContextEntry> contexts = new ConcurrentHashMap<>();

    private volatile QueueMemory queue;
    private volatile boolean qiEnabled;
    private volatile long iqh;
    private volatile long iqt;
    private final AtomicInteger ics = new AtomicInteger();
    private final AtomicInteger iectl = new AtomicInteger(IECTL_IM);
    private final AtomicInteger fsts = new AtomicInteger();
    private volatile Runnable interruptHandler = () -> { };

    private final Thread engine;
    private volatile boolean running = true;
    private volatile boolean engineIdle;

    // Engine statistics; the engine is their only writer.
    private volatile long iotlbDescriptors;
    private volatile long waitDescriptors;
    private volatile long otherDescriptors;
    private volatile long interrupts;
    private volatile long iwcSets;
    private final LongAdder dmaPages = new LongAdder();
    private final List<DmaFault> faultLog = new ArrayList<>();
    private final LongAdder faults = new LongAdder();

    /** A context entry: the domain and page table a requester's DMA goes through. */
    record ContextEntry(int domainId, PageTable pageTable) {
    }

    /**
     * Creates the unit and starts its engine thread ({@code <name> qi engine}).
     *
     * @param name the unit's name, e.g. {@code dmar0}
     * @param memory the physical memory devices write into
     * @param iotlbCapacity IOTLB slots, a power of two
     * @param latencyNanos extra time the engine spends per descriptor, ns (0 for none)
     */
    public DmarHardware(String name, PhysicalMemory memory, int iotlbCapacity, long latencyNanos) {
        this.name = Objects.requireNonNull(name, "name");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.iotlb = new Iotlb(iotlbCapacity);
        if (latencyNanos < 0) {
            throw new IllegalArgumentException("descriptor latency must be >= 0 ns, got " + latencyNanos);
        }
        this.latencyNanos = latencyNanos;
        this.engine = new Thread(this::engineLoop, name + " qi engine");
        engine.setDaemon(true);
        engine.start();
    }

    // ---- registers, software side ----

    /**
     * Writes IQA: the queue memory and, implicitly, its size. Resets IQH to 0, as the
     * hardware does when the queue is (re)programmed. Only while QI is disabled.
     *
     * @param queueMemory the ring
     * @throws IllegalStateException if QI is enabled
     */
    public void writeIqa(QueueMemory queueMemory) {
        if (qiEnabled) {
            throw new IllegalStateException(name + ": IQA written while queued invalidation is enabled");
        }
        this.queue = Objects.requireNonNull(queueMemory, "queueMemory");
        this.iqh = 0;
        this.iqt = 0;
    }

    /**
     * GCMD.QIE = 1: start fetching descriptors. As {@code dmar_enable_qi}.
     *
     * @throws IllegalStateException if IQA was not written
     */
    public void enableQi() {
        if (queue == null) {
            throw new IllegalStateException(name + ": enable QI before programming IQA");
        }
        qiEnabled = true;
    }

    /** @return GSTS.QIES: whether queued invalidation is enabled */
    public boolean qiEnabled() {
        return qiEnabled;
    }

    /**
     * Writes IQT. An offset that is not 16-byte aligned or not below the queue size is a
     * queue error: FSTS.IQE is set and IQT keeps its value.
     *
     * @param tail byte offset one past the last published descriptor
     */
    public void writeIqt(long tail) {
        QueueMemory q = queue;
        if (q == null || (tail & (Descriptors.DESCR_SIZE - 1)) != 0 || tail < 0 || tail >= q.sizeBytes()) {
            fsts.getAndUpdate(v -> v | FSTS_IQE);
            return;
        }
        iqt = tail; // volatile: publishes the descriptor words written before it
        if (engineIdle) {
            LockSupport.unpark(engine);
        }
    }

    /** @return IQH, the byte offset of the next descriptor the engine reads */
    public long readIqh() {
        return iqh;
    }

    /** @return IQT as last written */
    public long readIqt() {
        return iqt;
    }

    /** @return ICS */
    public int readIcs() {
        return ics.get();
    }

    /**
     * Writes ICS: write-1-to-clear.
     *
     * @param value bits to clear
     */
    public void writeIcs(int value) {
        ics.getAndUpdate(v -> v & ~value);
    }

    /**
     * Writes IECTL.IM. Unmasking with IP set delivers the pending interrupt.
     *
     * @param value the new IECTL; only IM is writable
     */
    public void writeIectl(int value) {
        int old = iectl.getAndUpdate(v -> (v & ~IECTL_IM) | (value & IECTL_IM));
        if ((value & IECTL_IM) == 0 && (old & IECTL_IP) != 0) {
            iectl.getAndUpdate(v -> v & ~IECTL_IP);
            raiseInterrupt();
        }
    }

    /** @return IECTL */
    public int readIectl() {
        return iectl.get();
    }

    /** @return FSTS */
    public int readFsts() {
        return fsts.get();
    }

    /**
     * Sets the handler of the completion interrupt (the MSI vector's filter, FreeBSD's
     * {@code dmar_qi_intr}). It runs on the engine thread and must not block.
     *
     * @param handler the handler
     */
    public void setInterruptHandler(Runnable handler) {
        this.interruptHandler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * Declares the target of status writes to {@code address}: the memory word the driver
     * named in its wait descriptors ({@code inv_waitd_seq_hw_phys}).
     *
     * @param address the status address
     * @param word the store into that word
     */
    public void mapStatusWord(long address, IntConsumer word) {
        statusWords.put(address, Objects.requireNonNull(word, "word"));
    }

    /**
     * Installs the context entry of a requester.
     *
     * @param requestId bus:device.function source id
     * @param domainId the domain id (DID)
     * @param pageTable the domain's second-level page table
     */
    public void setContext(int requestId, int domainId, PageTable pageTable) {
        contexts.put(requestId, new ContextEntry(domainId, Objects.requireNonNull(pageTable, "pageTable")));
    }

    // ---- the DMA path ----

    /**
     * A device writes {@code len} bytes at {@code iova}: each page is translated through the
     * IOTLB (a miss walks the page table and fills it), checked against the page table, and
     * written to physical memory. The first fault stops the transfer, is recorded, and is
     * returned.
     *
     * @param requestId the device's source id
     * @param iova IOVA of the first byte
     * @param src the data
     * @param off offset in {@code src}
     * @param len bytes
     * @return null on success, or the fault
     */
    public DmaFault dmaWrite(int requestId, long iova, byte[] src, int off, int len) {
        ContextEntry ctx = contexts.get(requestId);
        if (ctx == null) {
            return fault(new DmaFault(requestId, iova, DmaFault.Reason.NO_CONTEXT));
        }
        long end = iova + len;
        long a = iova;
        while (a < end) {
            long page = a >>> PAGE_SHIFT;
            long chunkEnd = Math.min(end, (page + 1) << PAGE_SHIFT);
            long pte = ctx.pageTable().walk(a);
            long cached = iotlb.lookup(ctx.domainId(), page);
            long frame;
            if (cached >= 0) {
                // The DMA checker: a cached translation must agree with the page table.
                if ((pte & (PageTable.PTE_R | PageTable.PTE_W)) == 0) {
                    return fault(new DmaFault(requestId, a, DmaFault.Reason.STALE_UNMAPPED));
                }
                if (cached != (pte & PageTable.PTE_ADDR_MASK) >>> PAGE_SHIFT) {
                    return fault(new DmaFault(requestId, a, DmaFault.Reason.STALE_REMAPPED));
                }
                frame = cached;
            } else {
                if ((pte & PageTable.PTE_W) == 0) {
                    return fault(new DmaFault(requestId, a, DmaFault.Reason.NOT_PRESENT));
                }
                frame = (pte & PageTable.PTE_ADDR_MASK) >>> PAGE_SHIFT;
                iotlb.fill(ctx.domainId(), page, frame);
            }
            long pa = (frame << PAGE_SHIFT) | (a & ((1 << PAGE_SHIFT) - 1));
            memory.write(pa, src, off + (int) (a - iova), (int) (chunkEnd - a));
            dmaPages.increment();
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
        return f;
    }

    // ---- the engine ----

    private void engineLoop() {
        long emptySince = 0;
        while (running) {
            QueueMemory q = queue;
            long h = iqh;
            if (!qiEnabled || q == null || h == iqt) {
                // Poll for a while before parking: waking a parked thread costs more than the
                // descriptors it would process, and a busy host delays the wake-up further.
                long now = System.nanoTime();
                if (emptySince == 0) {
                    emptySince = now;
                }
                if (now - emptySince < IDLE_POLL_NANOS) {
                    Thread.onSpinWait();
                    continue;
                }
                engineIdle = true;
                // Re-check after announcing idleness: a writer that set IQT before seeing
                // engineIdle is caught here; one that sets it after will unpark us.
                if (running && (!qiEnabled || q == null || h == iqt)) {
                    LockSupport.parkNanos(this, 1_000_000L);
                }
                engineIdle = false;
                continue;
            }
            emptySince = 0;
            int off = (int) h;
            process(q.lo(off), q.hi(off));
            iqh = (h + Descriptors.DESCR_SIZE) & (q.sizeBytes() - 1);
        }
    }

    private void process(long lo, long hi) {
        if (latencyNanos > 0) {
            long until = System.nanoTime() + latencyNanos;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
        switch (Descriptors.type(lo)) {
            case (int) Descriptors.IOTLB_INV -> {
                int did = (int) (lo >>> Descriptors.IOTLB_DID_SHIFT) & 0xFFFF;
                long gran = lo & Descriptors.IOTLB_GRAN_MASK;
                if (gran == Descriptors.IOTLB_PAGE) {
                    int am = (int) (hi & Descriptors.IOTLB_AM_MASK);
                    iotlb.invalidatePages(did, (hi & ~0xFFFL) >>> PAGE_SHIFT, am);
                } else if (gran == Descriptors.IOTLB_DOM) {
                    iotlb.invalidateDomain(did);
                } else {
                    iotlb.invalidateAll();
                }
                iotlbDescriptors++;
            }
            case (int) Descriptors.WAIT -> {
                if ((lo & Descriptors.WAIT_SW) != 0) {
                    IntConsumer word = statusWords.get(hi & ~3L);
                    if (word != null) {
                        word.accept(Descriptors.waitStatusData(lo));
                    }
                }
                if ((lo & Descriptors.WAIT_IF) != 0) {
                    int old = ics.getAndUpdate(v -> v | ICS_IWC);
                    if ((old & ICS_IWC) == 0) {
                        iwcSets++;
                        int ie = iectl.get();
                        if ((ie & IECTL_IM) != 0) {
                            iectl.getAndUpdate(v -> v | IECTL_IP);
                        } else {
                            raiseInterrupt();
                        }
                    }
                }
                waitDescriptors++;
            }
            default -> otherDescriptors++;
        }
    }

    private void raiseInterrupt() {
        interrupts++;
        interruptHandler.run();
    }

    /** Stops the engine thread. Descriptors still queued are not processed. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(engine);
        try {
            engine.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- statistics ----

    /** @return the IOTLB */
    public Iotlb iotlb() {
        return iotlb;
    }

    /** @return IOTLB invalidation descriptors processed */
    public long iotlbDescriptors() {
        return iotlbDescriptors;
    }

    /** @return wait descriptors processed */
    public long waitDescriptors() {
        return waitDescriptors;
    }

    /** @return other descriptors processed */
    public long otherDescriptors() {
        return otherDescriptors;
    }

    /** @return completion interrupts raised (or made pending while masked) */
    public long interrupts() {
        return interrupts;
    }

    /** @return times ICS.IWC went from 0 to 1 */
    public long iwcSets() {
        return iwcSets;
    }

    /** @return pages transferred by device DMA */
    public long dmaPages() {
        return dmaPages.sum();
    }

    /** @return DMA faults recorded */
    public long faults() {
        return faults.sum();
    }

    /** @return the first faults recorded (at most 16) */
    public List<DmaFault> faultLog() {
        synchronized (faultLog) {
            return List.copyOf(faultLog);
        }
    }

    /** @return the unit's name */
    public String name() {
        return name;
    }
}
