package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * One DMAR unit's hardware as software sees it: its registers, wired to the three parts that
 * do the work: the invalidation-queue engine ({@link QiEngine}, driven by an
 * {@link EngineDriver} of the run's clock), the DMA remapping path with the context cache,
 * the IOTLB and the fault-recording registers ({@link DmaRemapper}), and the IOTLB itself.
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
 * <p>A write that can give the engine work (IQT, GCMD.QIE, FSTS.IQE, resuming or stepping a
 * halted engine) kicks the engine's driver; with the real-thread clock that wakes the engine
 * thread, with the virtual clock it schedules the next descriptor's completion.
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
    public static final int FAULT_RECORDS = DmaRemapper.FAULT_RECORDS;

    private final String name;
    private final Iotlb iotlb;
    private final PhysicalMemory memory;
    private final EngineTiming timing;
    private final DmaRemapper remapper;
    private final QiEngine engine;
    private final EngineDriver driver;
    /** CPU stall per register access; set before the unit is used. */
    private volatile RegisterTiming registerTiming = RegisterTiming.NONE;
    private final Map<Long, IntConsumer> statusWords = new ConcurrentHashMap<>();

    private volatile QueueMemory queue;
    private volatile long iqa;
    private volatile boolean qiEnabled;
    private volatile long iqh;
    private volatile long iqt;
    private final AtomicInteger ics = new AtomicInteger();
    private final AtomicInteger iectl = new AtomicInteger(IECTL_IM);
    private final AtomicInteger fsts = new AtomicInteger();
    private volatile Runnable interruptHandler = () -> { };
    private volatile long badTailWrites;

    /**
     * Creates the unit with its engine driven by {@code drivers} (the run's clock).
     *
     * @param name the unit's name, e.g. {@code dmar0}
     * @param memory the physical memory devices write into and the queue lives in
     * @param iotlbCapacity IOTLB slots, a power of two
     * @param timing the engine's time per descriptor
     * @param drivers builds the engine's driver
     */
    public DmarHardware(String name, PhysicalMemory memory, int iotlbCapacity, EngineTiming timing,
            EngineDriver.Factory drivers) {
        this.name = Objects.requireNonNull(name, "name");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.iotlb = new Iotlb(iotlbCapacity);
        this.timing = Objects.requireNonNull(timing, "timing");
        this.remapper = new DmaRemapper(memory, iotlb, () -> setFstsBits(FSTS_PFO));
        this.engine = new QiEngine(this, iotlb, remapper, timing);
        this.driver = Objects.requireNonNull(drivers, "drivers").create(engine, name);
    }

    /**
     * Creates the unit and starts its engine thread ({@code <name> qi engine}): the real-thread
     * clock.
     *
     * @param name the unit's name, e.g. {@code dmar0}
     * @param memory the physical memory devices write into and the queue lives in
     * @param iotlbCapacity IOTLB slots, a power of two
     * @param timing the engine's time per descriptor
     */
    public DmarHardware(String name, PhysicalMemory memory, int iotlbCapacity, EngineTiming timing) {
        this(name, memory, iotlbCapacity, timing, EngineThread::new);
    }

    /**
     * Creates the unit with the same latency for every descriptor type and no jitter, on the
     * real-thread clock.
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
        if (enable) {
            driver.kick();
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
            setFstsBits(FSTS_IQE);
            badTailWrites++;
            return;
        }
        iqt = tail; // volatile: publishes the descriptor words written before it
        driver.kick();
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
                engine.countInterrupt();
                interruptHandler.run();
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
        if (remapper.pendingFault()) {
            v |= FSTS_PPF;
        }
        return v | (remapper.faultRecordIndex() << 8);
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
        if ((clear & FSTS_IQE) != 0) {
            driver.kick();
        }
    }

    /**
     * Reads a fault-recording register.
     *
     * @param index 0..{@value #FAULT_RECORDS}-1
     * @return the fault it holds (F bit set), or null
     */
    public DmaFault readFaultRecord(int index) {
        return remapper.readFaultRecord(index);
    }

    /**
     * Writes 1 to a fault-recording register's F bit, freeing it.
     *
     * @param index 0..{@value #FAULT_RECORDS}-1
     */
    public void clearFaultRecord(int index) {
        remapper.clearFaultRecord(index);
    }

    /**
     * Sets the handler of the completion interrupt (the MSI vector's filter, FreeBSD's
     * {@code dmar_qi_intr}). It runs where the engine runs (the engine thread, or the
     * simulated instant the wait descriptor completes), or on the thread that unmasks a
     * pending interrupt, and must not block.
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

    // ---- context entries and the DMA path (the remapper) ----

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
        remapper.setContext(requestId, domainId, pageTable);
    }

    /**
     * Clears a requester's context entry (not present). Cached copies survive until invalidated.
     *
     * @param requestId the source id
     */
    public void clearContext(int requestId) {
        remapper.clearContext(requestId);
    }

    /**
     * @param requestId a source id
     * @return whether the hardware holds a cached context entry for it
     */
    public boolean contextCached(int requestId) {
        return remapper.contextCached(requestId);
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
        return remapper.dma(requestId, iova, src, off, len, true);
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
        return remapper.dma(requestId, iova, dst, off, len, false);
    }

    // ---- the engine ----

    /** Halts the engine before its next descriptor. Descriptors stay queued; IQH stays. */
    public void haltEngine() {
        engine.halt();
    }

    /** Lets a halted engine run freely again. */
    public void resumeEngine() {
        engine.resume();
        driver.kick();
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
        engine.step(n);
        driver.kick();
    }

    /** @return the driver that runs the engine */
    public EngineDriver engineDriver() {
        return driver;
    }

    /** Stops the engine's driver. Descriptors still queued are not executed. */
    @Override
    public void close() {
        driver.close();
    }

    // ---- what the engine reads and writes (package-private) ----

    QueueMemory queue() {
        return queue;
    }

    long iqhRaw() {
        return iqh;
    }

    void setIqh(long v) {
        iqh = v;
    }

    int fstsRaw() {
        return fsts.get();
    }

    void setFstsBits(int bits) {
        fsts.getAndUpdate(v -> v | bits);
    }

    IntConsumer statusWord(long address) {
        return statusWords.get(address);
    }

    /** Sets ICS.IWC. @return whether it went from 0 to 1 */
    boolean setIwc() {
        return (ics.getAndUpdate(v -> v | ICS_IWC) & ICS_IWC) == 0;
    }

    /** Raises the completion interrupt, or makes it pending while IECTL.IM is set. @return whether it was raised */
    boolean deliverOrPend() {
        if ((iectl.get() & IECTL_IM) != 0) {
            iectl.getAndUpdate(v -> v | IECTL_IP);
            return false;
        }
        interruptHandler.run();
        return true;
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
        return engine.iotlbDescriptors();
    }

    /** @return page-selective IOTLB invalidation descriptors executed */
    public long iotlbPageDescriptors() {
        return engine.iotlbPageDescriptors();
    }

    /** @return wait descriptors executed */
    public long waitDescriptors() {
        return engine.waitDescriptors();
    }

    /** @return context-cache invalidation descriptors executed */
    public long contextDescriptors() {
        return engine.contextDescriptors();
    }

    /** @return interrupt-entry-cache invalidation descriptors executed */
    public long iecDescriptors() {
        return engine.iecDescriptors();
    }

    /** @return all descriptors executed */
    public long descriptorsExecuted() {
        return iotlbDescriptors() + waitDescriptors() + contextDescriptors() + iecDescriptors();
    }

    /** @return invalidation-queue errors (bad tail writes and invalid descriptors) */
    public long queueErrors() {
        return badTailWrites + engine.invalidDescriptors();
    }

    /** @return status writes that went to plain memory (no mapped status word there) */
    public long statusWritesToMemory() {
        return engine.statusWritesToMemory();
    }

    /** @return completion interrupts raised (one that was pending while masked counts when unmasking delivers it) */
    public long interrupts() {
        return engine.interrupts();
    }

    /** @return times ICS.IWC went from 0 to 1 */
    public long iwcSets() {
        return engine.iwcSets();
    }

    /** @return 4 KiB pages (or parts) transferred by device DMA */
    public long dmaPages() {
        return remapper.dmaPages();
    }

    /** @return DMA faults recorded */
    public long faults() {
        return remapper.faults();
    }

    /** @return faults that found their fault-recording register busy (FSTS.PFO) */
    public long faultsDropped() {
        return remapper.faultsDropped();
    }

    /** @return the first faults recorded (at most 16) */
    public List<DmaFault> faultLog() {
        return remapper.faultLog();
    }

    /** @return the unit's name */
    public String name() {
        return name;
    }
}
