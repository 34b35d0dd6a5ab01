package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.sim.hw.Descriptors;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import io.github.dmarflush.sim.hw.QueueMemory;
import io.github.dmarflush.sim.lock.MutexFactory;
import io.github.dmarflush.sim.lock.SimMutex;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Lock;

/**
 * The driver's view of one DMAR unit, as FreeBSD's {@code struct dmar_unit} with its
 * queued-invalidation code ({@code sys/x86/iommu/intel_qi.c}, {@code iommu_utils.c}): the
 * unit lock {@code dmarhw}, the software side of the invalidation queue
 * ({@link InvalidationRing}), the (gen, seq) sequencer, the TLB flush list, and the QI task
 * with what runs it ({@link QiTaskRunner}).
 *
 * <p>It wires the library's {@link QiSequencer} and {@link QiTask} to the simulated hardware
 * (the ring as their {@link InvalidationQueue}, this class as their
 * {@link InvalidationCompletionStatus}) and issues the driver's invalidation requests.
 * Everything the flush list and the protocol decide is decided by the library classes (or by
 * what {@link UnitHooks} supplies in their place); this class only moves their decisions into
 * the simulated hardware.
 *
 * <h2>Clocks</h2>
 * The unit is the same in both clocks; the clock supplies its mutex ({@link MutexFactory}),
 * the engine's driver (in the {@link DmarHardware}) and what runs the QI task
 * ({@link TaskScheduling}).
 *
 * <h2>Zero-length unloads (departure from FreeBSD)</h2>
 * {@link #invalidateLocked} of an entry with no bytes queues nothing and hands out no
 * sequence number: there is nothing to invalidate, so nothing to wait for. FreeBSD's
 * {@code iommu_qi_invalidate_locked} would still emit a wait sequence. The caller
 * ({@link DmarDomain#unload}) frees such an entry at once instead of linking it on the list.
 *
 * <h2>Locking</h2>
 * {@code dmarhw} guards the ring's software tail and free space, and serializes producers
 * of the flush list. Callers of {@link #invalidateLocked} hold it (through
 * {@link #unloadLock()}); the QI task takes it itself where its strategy says so.
 */
public final class DmarUnit implements InvalidationCompletionStatus, AutoCloseable {

    /**
     * How to build a unit.
     *
     * @param strategy which flush list
     * @param mode deferred (flush list) or strict (synchronous) unloads
     * @param qs IQA.QS: a queue of {@code 2^qs} pages, 256 descriptors each
     * @param spinNanos how long a contended {@code dmarhw} acquisition spins before blocking
     *     (real-thread clock)
     * @param hooks the library classes (or broken variants, in tests)
     */
    public record Options(FlushStrategy strategy, InvalidationMode mode, int qs, long spinNanos, UnitHooks hooks) {

        /**
         * @throws NullPointerException if a reference is null
         * @throws IllegalArgumentException if {@code qs} or {@code spinNanos} is out of range
         */
        public Options {
            Objects.requireNonNull(strategy, "strategy");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(hooks, "hooks");
            if (qs < 0 || qs > QueueMemory.MAX_QS) {
                throw new IllegalArgumentException("IQA.QS must be 0.." + QueueMemory.MAX_QS + ", got " + qs);
            }
            if (spinNanos < 0) {
                throw new IllegalArgumentException("spin time must be >= 0 ns, got " + spinNanos);
            }
        }

        /**
         * @param strategy the flush list
         * @return deferred mode, a queue of 8 pages, 10 µs spin, the shipped library
         */
        public static Options defaults(FlushStrategy strategy) {
            return new Options(strategy, InvalidationMode.DEFERRED, 3, 10_000, UnitHooks.LIBRARY);
        }
    }

    /** Frames of the global invalidations done at attach. */
    static final CallStack INIT_STACK = CallStack.of("dmar_init_qi", "dmar_attach");
    /** Frames of the final quiesce. */
    static final CallStack QUIESCE_STACK = CallStack.of("iommu_qi_common_fini", "dmar_fini_qi");

    private final DmarHardware hw;
    private final Options options;
    private final SimMutex dmarhw;
    private final Lock unloadLock;
    private final Lock syncLock;
    private final InvalidationRing ring;
    private final long statusAddress;
    private volatile long iotlbDescriptorsEmitted;
    private volatile long emptyInvalidations;
    private final QiSequencer sequencer;
    private final TlbFlushList<IommuMapEntry> flushList;
    private final Runnable task;
    private final QiTaskRunner taskRunner;
    private final InvalidationStacks stacks = new InvalidationStacks();

    /**
     * Programs the hardware's queue (IQA), enables QI and its interrupt, starts what runs the
     * QI task, and invalidates the context cache, the IOTLB and the interrupt entry cache
     * globally, as {@code dmar_init_qi} and the attach path do.
     *
     * @param hw the unit's hardware
     * @param options how to build it
     * @param mutexes makes {@code dmarhw} for the run's clock
     * @param tasks runs the QI task for the run's clock
     */
    public DmarUnit(DmarHardware hw, Options options, MutexFactory mutexes, TaskScheduling tasks) {
        this.hw = Objects.requireNonNull(hw, "hw");
        this.options = Objects.requireNonNull(options, "options");
        this.dmarhw = mutexes.create("dmarhw");
        this.unloadLock = dmarhw.site("iommu_domain_unload");
        this.syncLock = dmarhw.site("iommu_qi_invalidate_sync");
        Lock taskLock = dmarhw.site("dmar_qi_task");
        Lock initLock = dmarhw.site("dmar_init_qi");
        PhysicalMemory memory = hw.memory();
        QueueMemory invQueue = QueueMemory.allocate(memory, options.qs());
        this.statusAddress = memory.allocate(PhysicalMemory.PAGE_SIZE);
        this.ring = new InvalidationRing(hw, invQueue, statusAddress);
        this.sequencer = QiSequencer.builder(taskLock, ring).build();
        Reclaimer<IommuMapEntry> direct = new Reclaimer<>() {
            @Override
            public void releaseItem(IommuMapEntry entry) {
                entry.domain.freeSpace(entry);
            }

            @Override
            public void retireElement(IommuMapEntry element) {
                if (element.domain != null) { // the initial dummy has no domain
                    element.domain.freeEntry(element);
                }
            }
        };
        TlbFlushList<IommuMapEntry> list = options.hooks().flushList()
                .create(options.strategy(), new IommuMapEntry(null), tasks.reclaimer(direct), taskLock);
        this.flushList = options.hooks().processed() == UnitHooks.NO_WRAP
                ? list : new WrappedProcessed(list, options.hooks().processed());
        this.task = options.hooks().task().create(flushList, sequencer, this);

        hw.mapStatusWord(statusAddress, sequencer::statusWrite);
        this.taskRunner = tasks.start(this);
        initLock.lock();
        try {
            hw.writeIqa(invQueue);
            hw.writeGcmd(DmarHardware.GCMD_QIE); // dmar_enable_qi
            if ((hw.readIcs() & DmarHardware.ICS_IWC) != 0) {
                hw.writeIcs(DmarHardware.ICS_IWC);
            }
            hw.writeIectl(0); // dmar_enable_qi_intr: clear IM
            // dmar_qi_invalidate_ctx_glob_locked, dmar_qi_invalidate_iotlb_glob_locked,
            // dmar_qi_invalidate_iec_glob: each a descriptor and a synchronous wait.
            invalidateGlobalLocked(Descriptors.contextGlobalLo(), INIT_STACK);
            invalidateGlobalLocked(Descriptors.iotlbGlobalLo(), INIT_STACK);
            invalidateGlobalLocked(Descriptors.iecGlobalLo(), INIT_STACK);
        } finally {
            initLock.unlock();
        }
    }

    /**
     * A unit on host threads: real locks spinning at most {@code options.spinNanos()}, and a
     * {@link QiTaskQueue} thread.
     *
     * @param hw the unit's hardware
     * @param options how to build it
     */
    public DmarUnit(DmarHardware hw, Options options) {
        this(hw, options, MutexFactory.lockstat(options.spinNanos()), TaskScheduling.HOST_THREADS);
    }

    /**
     * A unit with the shipped library classes, deferred mode, on host threads.
     *
     * @param hw the unit's hardware
     * @param strategy which flush list
     * @param qs IQA.QS
     * @param spinNanos how long a contended {@code dmarhw} acquisition spins before blocking
     */
    public DmarUnit(DmarHardware hw, FlushStrategy strategy, int qs, long spinNanos) {
        this(hw, new Options(strategy, InvalidationMode.DEFERRED, qs, spinNanos, UnitHooks.LIBRARY));
    }

    /** Applies a {@link UnitHooks#processed()} wrapper to the drain's stop condition. */
    private static final class WrappedProcessed implements TlbFlushList<IommuMapEntry> {
        private final TlbFlushList<IommuMapEntry> inner;
        private final java.util.function.UnaryOperator<SeqProcessed> wrap;

        WrappedProcessed(TlbFlushList<IommuMapEntry> inner, java.util.function.UnaryOperator<SeqProcessed> wrap) {
            this.inner = inner;
            this.wrap = wrap;
        }

        @Override
        public void enqueue(IommuMapEntry entry) {
            inner.enqueue(entry);
        }

        @Override
        public int drain(SeqProcessed processed) {
            return inner.drain(wrap.apply(processed));
        }

        @Override
        public boolean isEmpty() {
            return inner.isEmpty();
        }
    }

    /** @return the unit lock, for reports */
    public SimMutex lock() {
        return dmarhw;
    }

    /**
     * @return the view of the unit lock that the deferred unload path takes
     *     ({@code iommu_domain_unload})
     */
    public Lock unloadLock() {
        return unloadLock;
    }

    /** @return the strategy */
    public FlushStrategy strategy() {
        return options.strategy();
    }

    /** @return deferred or strict */
    public InvalidationMode mode() {
        return options.mode();
    }

    /** @return the options the unit was built with */
    public Options options() {
        return options;
    }

    /** @return the software side of the invalidation queue */
    public InvalidationRing ring() {
        return ring;
    }

    /**
     * Writes descriptors and publishes them: ensure room for all, write them in order,
     * advance IQT once. The caller holds {@code dmarhw}. Used for descriptors outside the
     * unload path and by tests that drive the ring directly.
     *
     * @param loHi pairs of (lo, hi) words
     * @throws IllegalArgumentException if the words do not form pairs
     */
    public void submitLocked(long... loHi) {
        if (loHi.length == 0 || (loHi.length & 1) != 0) {
            throw new IllegalArgumentException("descriptors come as (lo, hi) pairs, got " + loHi.length + " words");
        }
        ring.ensure(loHi.length / 2);
        for (int i = 0; i < loHi.length; i += 2) {
            ring.emit(loHi[i], loHi[i + 1]);
        }
        ring.advanceTail();
    }

    /**
     * {@link #submitLocked} under {@code dmarhw}.
     *
     * @param loHi pairs of (lo, hi) words
     */
    public void submit(long... loHi) {
        unloadLock.lock();
        try {
            submitLocked(loHi);
        } finally {
            unloadLock.unlock();
        }
    }

    /** @return the software tail, bytes (exact under {@code dmarhw}) */
    public int softwareTail() {
        return ring.softwareTail();
    }

    /** @return the queue memory */
    public QueueMemory queueMemory() {
        return ring.memory();
    }

    /** @return the physical address of the status word the wait descriptors name */
    public long statusAddress() {
        return statusAddress;
    }

    // ---- InvalidationCompletionStatus ----

    @Override
    public boolean iwc() {
        return (hw.readIcs() & DmarHardware.ICS_IWC) != 0;
    }

    @Override
    public void clearIwc() {
        hw.writeIcs(DmarHardware.ICS_IWC);
    }

    // ---- invalidation requests ----

    /**
     * Emits the page-selective IOTLB invalidations that cover {@code [base, base + size)}.
     * As the loop of {@code dmar_qi_invalidate_emit}. The caller holds {@code dmarhw}.
     */
    private void emitIotlbRange(int did, long base, long size) {
        long lo = Descriptors.iotlbPageLo(did);
        while (size > 0) {
            int am = calcAm(base, size);
            long isize = 1L << (am + 12);
            ring.ensure(1);
            ring.emit(lo, Descriptors.iotlbPageHi(base, am));
            iotlbDescriptorsEmitted++;
            base += isize;
            size -= isize;
        }
    }

    /**
     * Queues the IOTLB invalidation of an entry's range, a wait sequence for it, links it on
     * the TLB flush list, and advances the tail. As {@code iommu_qi_invalidate_locked} (with
     * {@code dmar_qi_invalidate_emit}). The caller holds {@code dmarhw} and has already cleared
     * the range's page-table entries.
     *
     * <p>The order is the protocol's: the entry's wait sequence is set before the entry is
     * linked, and the entry is linked before the tail moves past its wait descriptor, so the
     * QI task that the wait descriptor's interrupt schedules always finds it.
     *
     * <p>An entry with no bytes is not touched: no descriptor, no sequence number, not linked
     * (see the class notes); the caller frees it.
     *
     * @param entry the unmapped entry
     * @param emitWait whether this entry gets its own wait descriptor with an interrupt
     *     (batch coalescing gives one only to every Nth and the last)
     * @param stack the caller's stack, for the aggregation of invalidation requests
     * @return true if the entry was queued; false for an empty entry
     */
    public boolean invalidateLocked(IommuMapEntry entry, boolean emitWait, CallStack stack) {
        long size = entry.end - entry.start;
        if (size == 0) {
            emptyInvalidations++;
            return false;
        }
        stacks.count(stack);
        emitIotlbRange(entry.domain.domainId(), entry.start, size);
        entry.setWaitSeq(emitWaitSeqLocked(emitWait));
        flushList.enqueue(entry);
        ring.advanceTail();
        return true;
    }

    /**
     * Hands out the next (gen, seq) and writes its wait descriptor if asked, as
     * {@link QiSequencer#emitWaitSeq}. The caller holds {@code dmarhw}.
     *
     * @param emitWait whether to write a wait descriptor (with interrupt) for it
     * @return the packed (gen, seq)
     */
    public long emitWaitSeqLocked(boolean emitWait) {
        if (sequencer.nextSeq() != GenSeq.SEQ_WRAP) {
            return sequencer.emitWaitSeq(emitWait);
        }
        // The wrap spins inside emitWaitSeq until the hardware has processed the old
        // generation's last seq; a simulated engine must run during that spin.
        long[] gseq = new long[1];
        hw.engineDriver().whileCpuWaits(() -> gseq[0] = sequencer.emitWaitSeq(emitWait));
        return gseq[0];
    }

    /**
     * Queues the IOTLB invalidation of an entry's range and a wait descriptor, advances the
     * tail, and waits until the hardware has completed them. As {@code iommu_qi_invalidate_sync}.
     * Takes {@code dmarhw} itself (site {@code iommu_qi_invalidate_sync}); sleeps on the unit's
     * condition until the QI task wakes it. The caller then frees the range.
     *
     * @param entry the unmapped entry, not empty
     * @param cansleep sleep while waiting; otherwise spin holding the lock
     * @param stack the caller's stack
     * @return the packed (gen, seq) that was waited for
     */
    public long invalidateSync(IommuMapEntry entry, boolean cansleep, CallStack stack) {
        syncLock.lock();
        try {
            stacks.count(stack);
            emitIotlbRange(entry.domain.domainId(), entry.start, entry.end - entry.start);
            long gseq = sequencer.emitWaitSeq(true);
            sequencer.registerWaiter();
            ring.advanceTail();
            sequencer.waitForSeq(gseq, !cansleep);
            return gseq;
        } finally {
            syncLock.unlock();
        }
    }

    /**
     * Queues one global (or domain/device-selective) invalidation descriptor and waits for
     * it, spinning. As {@code dmar_qi_invalidate_ctx_glob_locked} and friends. The caller
     * holds {@code dmarhw}.
     *
     * @param lo the descriptor's low word (context-cache, IOTLB or IEC; hi is 0)
     * @param stack the caller's stack
     * @return the packed (gen, seq) that was waited for
     */
    public long invalidateGlobalLocked(long lo, CallStack stack) {
        stacks.count(stack);
        ring.ensure(1);
        ring.emit(lo, 0);
        if (Descriptors.type(lo) == Descriptors.IOTLB_INV) {
            iotlbDescriptorsEmitted++;
        }
        long[] gseq = new long[1];
        // waitForSeq spins with the lock held; a simulated engine must run during that spin.
        hw.engineDriver().whileCpuWaits(() -> {
            gseq[0] = sequencer.emitWaitSeq(true);
            sequencer.registerWaiter();
            ring.advanceTail();
            sequencer.waitForSeq(gseq[0], true);
        });
        return gseq[0];
    }

    /**
     * The most descriptors {@link #invalidateLocked} can write for these entries: each
     * entry's IOTLB invalidations and wait descriptor, and one more for a sequence wrap. A
     * simulated CPU waits for that much ring space before its step.
     *
     * @param entries the entries an unload will queue
     * @return descriptors
     */
    public int descriptorsToInvalidate(List<IommuMapEntry> entries) {
        int n = 1;
        for (IommuMapEntry e : entries) {
            long base = e.start;
            long size = e.end - e.start;
            if (size > 0) {
                n++; // its wait descriptor (at most one per entry)
            }
            while (size > 0) {
                long isize = 1L << (calcAm(base, size) + 12);
                base += isize;
                size -= isize;
                n++;
            }
        }
        return n;
    }

    /**
     * The largest address mask for a page-selective invalidation starting at {@code base}:
     * {@code 2^am} pages, aligned, not beyond {@code size}. As FreeBSD's {@code calc_am}, with
     * the unit's maximum address mask value (MAMV) of {@value Descriptors#MAMV} (2 MiB).
     */
    static int calcAm(long base, long size) {
        for (int am = Descriptors.MAMV; am > 0; am--) {
            long isize = 1L << (am + 12);
            if ((base & (isize - 1)) == 0 && size >= isize) {
                return am;
            }
        }
        return 0;
    }

    /**
     * Waits until every descriptor queued so far has completed and the QI task has released
     * every entry they cover. As the quiesce step of {@code dmar_fini_qi}, followed by a run
     * of the task. Call it without {@code dmarhw}. Host threads only: in virtual time the
     * quiesce is a simulated thread's program.
     *
     * @throws IllegalStateException if the QI task does not run on a {@link QiTaskQueue}
     */
    public void quiesce() {
        if (!(taskRunner instanceof QiTaskQueue)) {
            throw new IllegalStateException("quiesce() runs on host threads; in virtual time quiesce with a simulated thread");
        }
        unloadLock.lock();
        try {
            stacks.count(QUIESCE_STACK);
            sequencer.quiesce(false);
        } finally {
            unloadLock.unlock();
        }
        ((QiTaskQueue) taskRunner).runAndWait();
    }

    /** @return the flush list */
    public TlbFlushList<IommuMapEntry> flushList() {
        return flushList;
    }

    /** @return the sequencer */
    public QiSequencer sequencer() {
        return sequencer;
    }

    /** @return the QI task body; a {@link QiTask} unless the hooks supplied another */
    public Runnable task() {
        return task;
    }

    /** @return the QI task if it is the library's, for its counters; otherwise null */
    public QiTask qiTask() {
        return task instanceof QiTask t ? t : null;
    }

    /** @return what runs the QI task */
    public QiTaskRunner taskRunner() {
        return taskRunner;
    }

    /** @return the hardware */
    public DmarHardware hardware() {
        return hw;
    }

    /** @return invalidation requests per call stack */
    public InvalidationStacks stacks() {
        return stacks;
    }

    /** @return times the ring was found full and a producer had to wait */
    public long queueFull() {
        return ring.queueFullEvents();
    }

    /** @return spin iterations spent waiting for ring space */
    public long queueFullSpins() {
        return ring.queueFullSpins();
    }

    /** @return IOTLB invalidation descriptors written */
    public long iotlbDescriptorsEmitted() {
        return iotlbDescriptorsEmitted;
    }

    /** @return all descriptors written */
    public long descriptorsEmitted() {
        return ring.descriptorsEmitted();
    }

    /** @return empty entries that {@link #invalidateLocked} skipped */
    public long emptyInvalidations() {
        return emptyInvalidations;
    }

    /**
     * @return {@code (gen N, seq 0x...)} of the next sequence number, for diagnostics
     */
    public String nextGenSeq() {
        return GenSeq.toString(GenSeq.of(sequencer.gen(), sequencer.nextSeq()));
    }

    /** Stops what runs the QI task and the hardware engine. */
    @Override
    public void close() {
        taskRunner.close();
        hw.close();
    }
}
