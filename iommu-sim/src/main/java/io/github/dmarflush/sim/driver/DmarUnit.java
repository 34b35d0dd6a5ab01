package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.sim.hw.Descriptors;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.QueueMemory;
import io.github.dmarflush.sim.lock.LockstatMutex;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The driver's view of one DMAR unit, as FreeBSD's {@code struct dmar_unit} with its
 * queued-invalidation code ({@code sys/x86/iommu/intel_qi.c}, {@code iommu_utils.c}): the
 * unit lock {@code dmarhw}, the software state of the invalidation queue (tail, free bytes),
 * the (gen, seq) sequencer, the TLB flush list, and the QI task on its task queue.
 *
 * <p>It implements the software side of the queue ({@link InvalidationQueue}: descriptors
 * written into the ring memory, IQT written to the hardware) and the ICS access
 * ({@link InvalidationCompletionStatus}) that the library's {@link QiSequencer} and
 * {@link QiTask} drive. Everything the flush list and the protocol decide is decided by the
 * library classes; this class only moves their decisions into the simulated hardware.
 *
 * <h2>Locking</h2>
 * {@code dmarhw} guards the queue's software tail and free space, and serializes producers
 * of the flush list. Callers of {@link #invalidateLocked} hold it (through
 * {@link #unloadLock()}); the QI task takes it itself where its strategy says so.
 */
public final class DmarUnit implements InvalidationQueue, InvalidationCompletionStatus, AutoCloseable {

    /** The simulated physical address of the status word ({@code inv_waitd_seq_hw_phys}). */
    static final long STATUS_WORD_ADDRESS = 0x7FFF_F000L;

    private final DmarHardware hw;
    private final FlushStrategy strategy;
    private final LockstatMutex dmarhw;
    private final Lock unloadLock;
    private final QueueMemory invQueue;
    private final int invQueueSize;
    /** Software tail (bytes), guarded by dmarhw. */
    private int invQueueTail;
    /** Free bytes known without re-reading IQH, guarded by dmarhw. */
    private int invQueueAvail;
    private volatile long queueFull;
    private volatile long iotlbDescriptorsEmitted;
    private final QiSequencer sequencer;
    private final TlbFlushList<IommuMapEntry> flushList;
    private final QiTask task;
    private final QiTaskQueue taskQueue;

    /**
     * Programs the hardware's queue (IQA, IQT = 0), enables QI and its interrupt, and starts
     * the task queue. As {@code dmar_init_qi}.
     *
     * @param hw the unit's hardware
     * @param strategy which flush list to use
     * @param qs the IQA queue size: {@code 2^qs} pages of 256 descriptors
     * @param spinNanos how long a contended {@code dmarhw} acquisition spins before blocking
     */
    public DmarUnit(DmarHardware hw, FlushStrategy strategy, int qs, long spinNanos) {
        this.hw = Objects.requireNonNull(hw, "hw");
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.dmarhw = new LockstatMutex("dmarhw", spinNanos, TimeUnit.NANOSECONDS);
        this.unloadLock = dmarhw.site("iommu_domain_unload");
        Lock taskLock = dmarhw.site("dmar_qi_task");
        this.invQueue = new QueueMemory(qs);
        this.invQueueSize = invQueue.sizeBytes();
        // One slot always stays free, so a full ring is not taken for an empty one.
        this.invQueueAvail = invQueueSize - Descriptors.DESCR_SIZE;
        this.sequencer = QiSequencer.builder(taskLock, this).build();
        Reclaimer<IommuMapEntry> reclaimer = new Reclaimer<>() {
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
        this.flushList = strategy == FlushStrategy.LOCKED
                ? new LockedFlushList<>(taskLock, reclaimer)
                : new ZombieHeadFlushList<>(new IommuMapEntry(null), reclaimer);
        this.task = new QiTask(flushList, sequencer, this);
        this.taskQueue = new QiTaskQueue(hw.name() + " qi taskq", task);

        hw.mapStatusWord(STATUS_WORD_ADDRESS, sequencer::statusWrite);
        hw.setInterruptHandler(taskQueue::enqueue); // dmar_qi_intr
        unloadLock.lock();
        try {
            hw.writeIqa(invQueue);
            hw.enableQi();
            if ((hw.readIcs() & DmarHardware.ICS_IWC) != 0) {
                hw.writeIcs(DmarHardware.ICS_IWC);
            }
            hw.writeIectl(0); // dmar_enable_qi_intr: clear IM
        } finally {
            unloadLock.unlock();
        }
    }

    /** @return the unit lock, for reports */
    public LockstatMutex lock() {
        return dmarhw;
    }

    /**
     * @return the view of the unit lock that the unload path takes
     *     ({@code iommu_domain_unload})
     */
    public Lock unloadLock() {
        return unloadLock;
    }

    /** @return the strategy */
    public FlushStrategy strategy() {
        return strategy;
    }

    // ---- InvalidationQueue: the software side of the ring ----

    /**
     * {@inheritDoc}
     *
     * <p>As {@code dmar_qi_ensure}: re-reads IQH only when the cached free space is short,
     * and while the ring is full advances IQT (so the hardware sees what is written) and
     * spins, counting queue-full events.
     */
    @Override
    public void ensure(int descriptors) {
        int bytes = descriptors * Descriptors.DESCR_SIZE;
        for (;;) {
            if (bytes <= invQueueAvail) {
                break;
            }
            int head = (int) hw.readIqh();
            invQueueAvail = head - invQueueTail - Descriptors.DESCR_SIZE;
            if (head <= invQueueTail) {
                invQueueAvail += invQueueSize;
            }
            if (bytes <= invQueueAvail) {
                break;
            }
            advanceTail();
            queueFull++;
            // cpu_spinwait(). The simulated hardware engine is a thread on the same CPUs:
            // give it the processor now and then, or a spinning producer starves it.
            if ((queueFull & 63) == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
        invQueueAvail -= bytes;
    }

    private void emit(long lo, long hi) {
        invQueue.write(invQueueTail, lo, hi);
        invQueueTail = (invQueueTail + Descriptors.DESCR_SIZE) & (invQueueSize - 1);
    }

    /** {@inheritDoc} As {@code dmar_qi_emit_wait_descr}. */
    @Override
    public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        emit(Descriptors.WAIT
                        | (interrupt ? Descriptors.WAIT_IF : 0)
                        | (statusWrite ? Descriptors.WAIT_SW : 0)
                        | (fence ? Descriptors.WAIT_FN : 0)
                        | (statusWrite ? (seq & 0xFFFF_FFFFL) << Descriptors.WAIT_SD_SHIFT : 0),
                statusWrite ? STATUS_WORD_ADDRESS : 0);
    }

    /** {@inheritDoc} As {@code dmar_qi_advance_tail}. */
    @Override
    public void advanceTail() {
        hw.writeIqt(invQueueTail);
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

    // ---- the unload path ----

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
     * @param entry the unmapped entry
     * @param emitWait whether this entry gets its own wait descriptor with an interrupt
     *     (batch coalescing gives one only to every Nth and the last)
     */
    public void invalidateLocked(IommuMapEntry entry, boolean emitWait) {
        int did = entry.domain.domainId();
        long base = entry.start;
        long size = entry.end - entry.start;
        while (size > 0) {
            int am = calcAm(base, size);
            long isize = 1L << (am + 12);
            ensure(1);
            long[] d = Descriptors.iotlbPage(did, base, am);
            emit(d[0], d[1]);
            iotlbDescriptorsEmitted++;
            base += isize;
            size -= isize;
        }
        entry.setWaitSeq(sequencer.emitWaitSeq(emitWait));
        flushList.enqueue(entry);
        advanceTail();
    }

    /**
     * The largest address mask for a page-selective invalidation starting at {@code base}:
     * {@code 2^am} pages, aligned, not beyond {@code size}. As FreeBSD's {@code calc_am}, with
     * a maximum address mask value (MAMV) of 9 (2 MiB).
     */
    static int calcAm(long base, long size) {
        final int mamv = 9;
        for (int am = mamv; am > 0; am--) {
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
     * of the task. Call it without {@code dmarhw}.
     */
    public void quiesce() {
        unloadLock.lock();
        try {
            sequencer.quiesce(false);
        } finally {
            unloadLock.unlock();
        }
        taskQueue.runAndWait();
    }

    /** @return the flush list */
    public TlbFlushList<IommuMapEntry> flushList() {
        return flushList;
    }

    /** @return the sequencer */
    public QiSequencer sequencer() {
        return sequencer;
    }

    /** @return the QI task */
    public QiTask task() {
        return task;
    }

    /** @return the task queue */
    public QiTaskQueue taskQueue() {
        return taskQueue;
    }

    /** @return the hardware */
    public DmarHardware hardware() {
        return hw;
    }

    /** @return times {@link #ensure} found the ring full */
    public long queueFull() {
        return queueFull;
    }

    /** @return IOTLB invalidation descriptors written */
    public long iotlbDescriptorsEmitted() {
        return iotlbDescriptorsEmitted;
    }

    /** Stops the task queue and the hardware engine. */
    @Override
    public void close() {
        taskQueue.close();
        hw.close();
    }
}
