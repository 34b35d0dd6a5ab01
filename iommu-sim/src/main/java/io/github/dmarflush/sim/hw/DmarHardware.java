package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * One DMAR unit's hardware: its registers, the invalidation-queue engine that runs as a
 * separate agent on its own thread, the IOTLB, the context entries and their cache, the
 * fault-recording registers, and the DMA path devices use.
 *
 * <h2>Registers (the queued-invalidation subset and fault recording)</h2>
 * <ul>
 *   <li>GCMD/GSTS ({@link #writeGcmd}, {@link #readGsts}): bit 26 QIE/QIES. Enabling needs
 *       IQA programmed; disabling needs an idle queue (IQH == IQT).</li>
 *   <li>IQA ({@link #writeIqa(long)}): queue base in bits 63:12, DW bit 11 (must be 0:
 *       128-bit descriptors), QS bits 2:0 (the queue is {@code 2^QS} 4 KiB pages). Writable
 *       only while QI is disabled; resets IQH and IQT to 0.</li>
 *   <li>IQH ({@link #readIqh()}): byte offset of the next descriptor the engine will
 *       execute; only the engine writes it, and it wraps at the queue size, so it always
 *       reads below the size. IQT ({@link #writeIqt(long)}): byte offset one past the last
 *       descriptor software has published. A tail at or beyond the queue size or not 16-byte
 *       aligned is a queue error: FSTS.IQE is set and IQT keeps its value.</li>
 *   <li>ICS ({@link #readIcs()}, {@link #writeIcs(int)}): bit 0 IWC, set by the engine when
 *       it completes a wait descriptor with IF, write-1-to-clear.</li>
 *   <li>IECTL ({@link #writeIectl(int)}): bit 31 IM masks the completion interrupt; bit 30
 *       IP (read-only) records one that arrived while masked and is delivered on unmask.</li>
 *   <li>FSTS ({@link #readFsts()}, {@link #writeFsts(int)}): PFO bit 0, PPF bit 1 (read-only:
 *       some fault record is pending), IQE bit 4; PFO and IQE are write-1-to-clear. FRI
 *       (bits 15:8) is the index of the fault record the next fault uses.</li>
 *   <li>FRCD ({@link #readFaultRecord(int)}, {@link #clearFaultRecord(int)}):
 *       {@value #FAULT_RECORDS} fault-recording registers used round robin. A fault that
 *       finds its register still holding an unread fault is dropped and sets FSTS.PFO.</li>
 * </ul>
 *
 * <h2>The engine</h2>
 * A thread executes descriptors in ring order from IQH to IQT, spending the configured
 * {@link EngineTiming} on each. It first checks the descriptor: an unsupported type or a
 * reserved bit set stops it at that descriptor with FSTS.IQE set and IQH pointing at it,
 * until software clears IQE. IOTLB invalidations drop cached translations; context-cache
 * invalidations drop cached context entries; a wait descriptor with SW performs the status
 * write (4 bytes of status data at the address in its upper quadword); with IF it sets
 * ICS.IWC and raises the completion interrupt only if IWC went from 0 to 1 (and IECTL.IM is
 * clear). IQH moves past a descriptor only once it is done. The engine polls an empty queue
 * for {@value #IDLE_POLL_NANOS} ns and then parks; an IQT write wakes it. It can be halted
 * and single-stepped ({@link #haltEngine()}, {@link #stepEngine(int)}), as one would with a
 * hardware debugger, to put the queue into states tests need.
 *
 * <h2>Thread-safety</h2>
 * Registers are volatile or atomic; any thread may read them. Software serializes its own
 * register writes under the unit lock, as a driver does.
 */
public final class DmarHardware implements AutoCloseable {

    /** GCMD/GSTS: queued invalidation enable / status. */
    public static final int GCMD_QIE = 1 << 26;
    /** ICS: Invalidation Wait Descriptor Complete. */
    public static final int ICS_IWC = 1;
    /** IECTL: interrupt mask. */
    public static final int IECTL_IM = 1 << 31;
    /** IECTL: interrupt pending. */
    public static final int IECTL_IP = 1 << 30;
    /** FSTS: primary fault overflow. */
    public static final int FSTS_PFO = 1;
    /** FSTS: primary pending fault. */
    public static final int FSTS_PPF = 1 << 1;
    /** FSTS: invalidation queue error. */
    public static final int FSTS_IQE = 1 << 4;
    /** IQA: descriptor width bit (1 = 256-bit, unsupported here). */
    public static final long IQA_DW = 1L << 11;
    /** Number of fault-recording registers (CAP.NFR + 1). */
    public static final int FAULT_RECORDS = 8;

    /** How long the engine polls an empty queue before it parks, ns. */
    private static final long IDLE_POLL_NANOS = 50_000;

    private final String name;
    private final Iotlb iotlb;
    private final PhysicalMemory memory;
    private final EngineTiming timing;
    /** CPU stall per register access; set before the unit is used. */
    private volatile RegisterTiming registerTiming = RegisterTiming.NONE;
    private final Map<Long, IntConsumer> statusWords = new ConcurrentHashMap<>();
    /** The context table as software wrote it: source id to entry. */
    private final Map<Integer, ContextEntry> contextTable = new ConcurrentHashMap<>();
    /** The context cache: present entries the hardware has fetched, until invalidated. */
    private final Map<Integer, ContextEntry> contextCache = new ConcurrentHashMap<>();

    private volatile QueueMemory queue;
    private volatile long iqa;
    private volatile boolean qiEnabled;
    private volatile long iqh;
    private volatile long iqt;
    private final AtomicInteger ics = new AtomicInteger();
    private final AtomicInteger iectl = new AtomicInteger(IECTL_IM);
    private final AtomicInteger fsts = new AtomicInteger();
    private final AtomicReferenceArray<DmaFault> frcd = new AtomicReferenceArray<>(FAULT_RECORDS);
    private final AtomicInteger fri = new AtomicInteger();
    private volatile Runnable interruptHandler = () -> { };

    private final Thread engine;
    private volatile boolean running = true;
    private volatile boolean engineIdle;
    private volatile boolean halted;
    private final AtomicLong stepBudget = new AtomicLong();

    // Engine statistics; the engine is their only writer.
    private volatile long iotlbDescriptors;
    private volatile long iotlbPageDescriptors;
    private volatile long waitDescriptors;
    private volatile long contextDescriptors;
    private volatile long iecDescriptors;
    private volatile long interrupts;
    private volatile long iwcSets;
    private volatile long queueErrors;
    private volatile long statusWritesToMemory;
    private final LongAdder dmaPages = new LongAdder();
    private final List<DmaFault> faultLog = new ArrayList<>();
    private final LongAdder faults = new LongAdder();
    private final LongAdder faultsDropped = new LongAdder();

    /**
     * A context entry: the domain and page table a requester's DMA goes through.
     *
     * @param domainId the domain id (DID)
     * @param pageTable the domain's second-level page table
     */
    public record ContextEntry(int domainId, PageTable pageTable) {
    }

    /**
     * Creates the unit and starts its engine thread ({@code <name> qi engine}).
     *
     * @param name the unit's name, e.g. {@code dmar0}
     * @param memory the physical memory devices write into and the queue lives in
     * @param iotlbCapacity IOTLB slots, a power of two
     * @param timing the engine's time per descriptor
     */
    public DmarHardware(String name, PhysicalMemory memory, int iotlbCapacity, EngineTiming timing) {
        this.name = Objects.requireNonNull(name, "name");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.iotlb = new Iotlb(iotlbCapacity);
        this.timing = Objects.requireNonNull(timing, "timing");
        this.engine = new Thread(this::engineLoop, name + " qi engine");
        engine.setDaemon(true);
        engine.start();
    }

    /**
     * Creates the unit with the same latency for every descriptor type and no jitter.
     *
     * @param name the unit's name
     * @param memory physical memory
     * @param iotlbCapacity IOTLB slots, a power of two
     * @param latencyNanos time per descriptor, ns
     */
    public DmarHardware(String name, PhysicalMemory memory, int iotlbCapacity, long latencyNanos) {
        this(name, memory, iotlbCapacity, EngineTiming.uniform(latencyNanos));
    }

    // ---- registers, software side ----

    /**
     * Writes IQA. Only while QI is disabled. Resets IQH and IQT to 0.
     *
     * @param value base (bits 63:12) | QS (bits 2:0); DW (bit 11) must be 0
     * @throws IllegalStateException if QI is enabled
     * @throws IllegalArgumentException if DW is set or the queue lies outside memory
     */
    public void writeIqa(long value) {
        if (qiEnabled) {
            throw new IllegalStateException(name + ": IQA written while queued invalidation is enabled");
        }
        if ((value & IQA_DW) != 0) {
            throw new IllegalArgumentException(name + ": IQA.DW=1 (256-bit descriptors) is not supported");
        }
        this.queue = new QueueMemory(memory, value & ~0xFFFL, (int) (value & 7));
        this.iqa = value;
        this.iqh = 0;
        this.iqt = 0;
    }

    /**
     * Writes IQA to program {@code queueMemory}.
     *
     * @param queueMemory the ring
     */
    public void writeIqa(QueueMemory queueMemory) {
        writeIqa(queueMemory.iqa());
    }

    /** @return IQA as last written */
    public long readIqa() {
        return iqa;
    }

    /**
     * Writes GCMD. Only QIE is modelled: setting it starts fetching descriptors (as
     * {@code dmar_enable_qi}); clearing it stops (as {@code dmar_disable_qi}).
     *
     * @param value the command; bit 26 QIE
     * @throws IllegalStateException if QI is enabled before IQA is programmed, or disabled
     *     while descriptors are pending
     */
    public void writeGcmd(int value) {
        boolean enable = (value & GCMD_QIE) != 0;
        if (enable && queue == null) {
            throw new IllegalStateException(name + ": enable QI before programming IQA");
        }
        if (!enable && qiEnabled && iqh != iqt) {
            throw new IllegalStateException(name + ": QI disabled with descriptors pending (IQH != IQT)");
        }
        qiEnabled = enable;
        if (enable && engineIdle) {
            LockSupport.unpark(engine);
        }
    }

    /** @return GSTS: QIES (bit 26) when queued invalidation is enabled */
    public int readGsts() {
        return qiEnabled ? GCMD_QIE : 0;
    }

    /** GCMD.QIE = 1. */
    public void enableQi() {
        writeGcmd(GCMD_QIE);
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
        registerTiming.write();
        QueueMemory q = queue;
        if (q == null || (tail & (Descriptors.DESCR_SIZE - 1)) != 0 || tail < 0 || tail >= q.sizeBytes()) {
            fsts.getAndUpdate(v -> v | FSTS_IQE);
            queueErrors++;
            return;
        }
        iqt = tail; // volatile: publishes the descriptor words written before it
        if (engineIdle) {
            LockSupport.unpark(engine);
        }
    }

    /** @return IQH, the byte offset of the next descriptor the engine executes */
    public long readIqh() {
        registerTiming.read();
        return iqh;
    }

    /** @return IQT as last written */
    public long readIqt() {
        return iqt;
    }

    /** @return ICS */
    public int readIcs() {
        registerTiming.read();
        return ics.get();
    }

    /**
     * Writes ICS: write-1-to-clear.
     *
     * @param value bits to clear
     */
    public void writeIcs(int value) {
        registerTiming.write();
        ics.getAndUpdate(v -> v & ~(value & ICS_IWC));
    }

    /**
     * Writes IECTL.IM. Unmasking with IP set delivers the pending interrupt.
     *
     * @param value the new IECTL; only IM is writable
     */
    public void writeIectl(int value) {
        int old = iectl.getAndUpdate(v -> (v & ~IECTL_IM) | (value & IECTL_IM));
        if ((value & IECTL_IM) == 0 && (old & IECTL_IP) != 0) {
            int prev = iectl.getAndUpdate(v -> v & ~IECTL_IP);
            if ((prev & IECTL_IP) != 0) {
                raiseInterrupt();
            }
        }
    }

    /** @return IECTL */
    public int readIectl() {
        return iectl.get();
    }

    /** @return FSTS, with PPF computed from the fault records and FRI in bits 15:8 */
    public int readFsts() {
        int v = fsts.get();
        for (int i = 0; i < FAULT_RECORDS; i++) {
            if (frcd.get(i) != null) {
                v |= FSTS_PPF;
                break;
            }
        }
        return v | ((fri.get() % FAULT_RECORDS) << 8);
    }

    /**
     * Writes FSTS: PFO and IQE are write-1-to-clear. Clearing IQE lets the engine fetch the
     * descriptor at IQH again.
     *
     * @param value bits to clear
     */
    public void writeFsts(int value) {
        int clear = value & (FSTS_PFO | FSTS_IQE);
        fsts.getAndUpdate(v -> v & ~clear);
        if ((clear & FSTS_IQE) != 0 && engineIdle) {
            LockSupport.unpark(engine);
        }
    }

    /**
     * Reads a fault-recording register.
     *
     * @param index 0..{@value #FAULT_RECORDS}-1
     * @return the fault it holds (F bit set), or null
     */
    public DmaFault readFaultRecord(int index) {
        return frcd.get(index);
    }

    /**
     * Writes 1 to a fault-recording register's F bit, freeing it.
     *
     * @param index 0..{@value #FAULT_RECORDS}-1
     */
    public void clearFaultRecord(int index) {
        frcd.set(index, null);
    }

    /**
     * Sets the handler of the completion interrupt (the MSI vector's filter, FreeBSD's
     * {@code dmar_qi_intr}). It runs on the engine thread (or the thread that unmasks a
     * pending interrupt) and must not block.
     *
     * @param handler the handler
     */
    public void setInterruptHandler(Runnable handler) {
        this.interruptHandler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * Declares that status writes to {@code address} go to {@code word} instead of plain
     * memory: the driver's {@code inv_waitd_seq_hw}, whose store the sequencer owns.
     *
     * @param address the status address
     * @param word the store into that word
     */
    public void mapStatusWord(long address, IntConsumer word) {
        statusWords.put(address, Objects.requireNonNull(word, "word"));
    }

    /**
     * Writes the context entry of a requester into the context table. A requester whose
     * entry the hardware has cached keeps using the cached one until a context-cache
     * invalidation covers it.
     *
     * @param requestId bus:device.function source id
     * @param domainId the domain id (DID)
     * @param pageTable the domain's second-level page table
     */
    public void setContext(int requestId, int domainId, PageTable pageTable) {
        contextTable.put(requestId, new ContextEntry(domainId, Objects.requireNonNull(pageTable, "pageTable")));
    }

    /**
     * Clears a requester's context entry (not present). Cached copies survive until invalidated.
     *
     * @param requestId the source id
     */
    public void clearContext(int requestId) {
        contextTable.remove(requestId);
    }

    /**
     * @param requestId a source id
     * @return whether the hardware holds a cached context entry for it
     */
    public boolean contextCached(int requestId) {
        return contextCache.containsKey(requestId);
    }

    // ---- the DMA path ----

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

    /**
     * Translates one address for a DMA access and checks it (the DMA checker).
     *
     * @return the IOTLB entry to use, or the reason the access faults (no allocation either way
     *     unless the IOTLB is filled)
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

    private DmaFault dma(int requestId, long iova, byte[] buf, int off, int len, boolean write) {
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

    /**
     * A device writes {@code len} bytes at {@code iova}: each page is translated through the
     * IOTLB (a miss walks the page table and fills it), checked against the page table, and
     * written to physical memory (addresses beyond the simulated memory are translated and
     * checked but not stored). The first fault stops the transfer, is recorded, and returned.
     *
     * @param requestId the device's source id
     * @param iova IOVA of the first byte
     * @param src the data
     * @param off offset in {@code src}
     * @param len bytes
     * @return null on success, or the fault
     */
    public DmaFault dmaWrite(int requestId, long iova, byte[] src, int off, int len) {
        return dma(requestId, iova, src, off, len, true);
    }

    /**
     * A device reads {@code len} bytes at {@code iova} (memory to device), translated and
     * checked as {@link #dmaWrite}.
     *
     * @param requestId the device's source id
     * @param iova IOVA of the first byte
     * @param dst where the data goes
     * @param off offset in {@code dst}
     * @param len bytes
     * @return null on success, or the fault
     */
    public DmaFault dmaRead(int requestId, long iova, byte[] dst, int off, int len) {
        return dma(requestId, iova, dst, off, len, false);
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
            fsts.getAndUpdate(v -> v | FSTS_PFO);
        }
        return f;
    }

    // ---- the engine ----

    /**
     * Halts the engine before its next descriptor. Descriptors stay queued; IQH stays.
     */
    public void haltEngine() {
        stepBudget.set(0);
        halted = true;
    }

    /** Lets a halted engine run freely again. */
    public void resumeEngine() {
        halted = false;
        LockSupport.unpark(engine);
    }

    /**
     * Lets a halted engine execute {@code n} more descriptors.
     *
     * @param n descriptors, at least 1
     */
    public void stepEngine(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("step count must be >= 1, got " + n);
        }
        stepBudget.addAndGet(n);
        LockSupport.unpark(engine);
    }

    private boolean mayExecute() {
        if (!halted) {
            return true;
        }
        for (;;) {
            long b = stepBudget.get();
            if (b <= 0) {
                return false;
            }
            if (stepBudget.compareAndSet(b, b - 1)) {
                return true;
            }
        }
    }

    private void engineLoop() {
        SplittableRandom jitter = new SplittableRandom(timing.seed());
        long emptySince = 0;
        while (running) {
            QueueMemory q = queue;
            long h = iqh;
            boolean blocked = !qiEnabled || q == null || h == iqt || (fsts.get() & FSTS_IQE) != 0;
            if (blocked || !mayExecute()) {
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
                if (running && (!qiEnabled || queue == null || iqh == iqt || (fsts.get() & FSTS_IQE) != 0
                        || (halted && stepBudget.get() <= 0))) {
                    LockSupport.parkNanos(this, 1_000_000L);
                }
                engineIdle = false;
                continue;
            }
            emptySince = 0;
            int off = (int) h;
            long lo = q.lo(off);
            long hi = q.hi(off);
            if (Descriptors.reservedBits(lo, hi) != 0) {
                // Invalid descriptor: stop here, IQH at the bad descriptor, until IQE is cleared.
                fsts.getAndUpdate(v -> v | FSTS_IQE);
                queueErrors++;
                continue;
            }
            long latency = timing.latencyOf(lo);
            if (timing.jitterNanos() > 0) {
                latency += jitter.nextLong(timing.jitterNanos() + 1);
            }
            if (latency > 0) {
                long until = System.nanoTime() + latency;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            execute(lo, hi);
            iqh = (h + Descriptors.DESCR_SIZE) & (q.sizeBytes() - 1);
        }
    }

    private void execute(long lo, long hi) {
        switch (Descriptors.type(lo)) {
            case (int) Descriptors.IOTLB_INV -> {
                int did = Descriptors.did(lo);
                long gran = lo & Descriptors.IOTLB_GRAN_MASK;
                if (gran == Descriptors.IOTLB_PAGE) {
                    int am = (int) (hi & Descriptors.IOTLB_AM_MASK);
                    long addr = hi & Descriptors.IOTLB_ADDR_MASK & -(1L << (am + 12));
                    iotlb.invalidatePages(did, addr, am);
                    iotlbPageDescriptors++;
                } else if (gran == Descriptors.IOTLB_DOM) {
                    iotlb.invalidateDomain(did);
                } else {
                    iotlb.invalidateAll();
                }
                iotlbDescriptors++;
            }
            case (int) Descriptors.CTX_INV -> {
                long gran = lo & Descriptors.CTX_GRAN_MASK;
                if (gran == Descriptors.CTX_GLOB) {
                    contextCache.clear();
                } else if (gran == Descriptors.CTX_DOM) {
                    int did = Descriptors.did(lo);
                    contextCache.values().removeIf(c -> c.domainId() == did);
                } else {
                    int sid = (int) (lo >>> Descriptors.CTX_SID_SHIFT) & 0xFFFF;
                    int fm = (int) (lo >>> Descriptors.CTX_FM_SHIFT) & 3;
                    int fnMask = fm == 0 ? 0 : (1 << fm) - 1; // FM n: ignore the low n function bits
                    contextCache.keySet().removeIf(r -> (r & ~fnMask) == (sid & ~fnMask));
                }
                contextDescriptors++;
            }
            case (int) Descriptors.IEC_INV -> iecDescriptors++; // no interrupt remapping modelled
            case (int) Descriptors.WAIT -> {
                // Counted before the status write: whoever sees the completion sees the count.
                waitDescriptors++;
                if ((lo & Descriptors.WAIT_SW) != 0) {
                    long addr = hi & Descriptors.WAIT_ADDR_MASK;
                    IntConsumer word = statusWords.get(addr);
                    int data = Descriptors.waitStatusData(lo);
                    if (word != null) {
                        word.accept(data);
                    } else if (memory.contains(addr, 4)) {
                        memory.writeIntVolatile(addr, data);
                        statusWritesToMemory++;
                    }
                }
                if ((lo & Descriptors.WAIT_IF) != 0) {
                    int old = ics.getAndUpdate(v -> v | ICS_IWC);
                    if ((old & ICS_IWC) == 0) {
                        iwcSets++;
                        if ((iectl.get() & IECTL_IM) != 0) {
                            iectl.getAndUpdate(v -> v | IECTL_IP);
                        } else {
                            raiseInterrupt();
                        }
                    }
                }
            }
            default -> throw new AssertionError("validated above");
        }
    }

    private void raiseInterrupt() {
        interrupts++;
        interruptHandler.run();
    }

    /** Stops the engine thread. Descriptors still queued are not executed. */
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

    /** @return the physical memory this unit reaches */
    public PhysicalMemory memory() {
        return memory;
    }

    /**
     * Sets how long a CPU stalls on a register access (IQT and ICS writes, IQH and ICS
     * reads). {@link RegisterTiming#NONE} until set.
     *
     * @param t the timing
     */
    public void setRegisterTiming(RegisterTiming t) {
        this.registerTiming = Objects.requireNonNull(t, "registerTiming");
    }

    /** @return the register access timing */
    public RegisterTiming registerTiming() {
        return registerTiming;
    }

    /** @return the engine timing */
    public EngineTiming timing() {
        return timing;
    }

    /** @return IOTLB invalidation descriptors executed (all granularities) */
    public long iotlbDescriptors() {
        return iotlbDescriptors;
    }

    /** @return page-selective IOTLB invalidation descriptors executed */
    public long iotlbPageDescriptors() {
        return iotlbPageDescriptors;
    }

    /** @return wait descriptors executed */
    public long waitDescriptors() {
        return waitDescriptors;
    }

    /** @return context-cache invalidation descriptors executed */
    public long contextDescriptors() {
        return contextDescriptors;
    }

    /** @return interrupt-entry-cache invalidation descriptors executed */
    public long iecDescriptors() {
        return iecDescriptors;
    }

    /** @return all descriptors executed */
    public long descriptorsExecuted() {
        return iotlbDescriptors + waitDescriptors + contextDescriptors + iecDescriptors;
    }

    /** @return invalidation-queue errors (bad tail writes and invalid descriptors) */
    public long queueErrors() {
        return queueErrors;
    }

    /** @return status writes that went to plain memory (no mapped status word there) */
    public long statusWritesToMemory() {
        return statusWritesToMemory;
    }

    /** @return completion interrupts raised (or made pending while masked) */
    public long interrupts() {
        return interrupts;
    }

    /** @return times ICS.IWC went from 0 to 1 */
    public long iwcSets() {
        return iwcSets;
    }

    /** @return 4 KiB pages (or parts) transferred by device DMA */
    public long dmaPages() {
        return dmaPages.sum();
    }

    /** @return DMA faults recorded */
    public long faults() {
        return faults.sum();
    }

    /** @return faults that found their fault-recording register busy (FSTS.PFO) */
    public long faultsDropped() {
        return faultsDropped.sum();
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
