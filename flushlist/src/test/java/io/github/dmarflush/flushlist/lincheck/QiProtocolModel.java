package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * One DMAR unit for the wakeup-protocol test: the unit lock, a {@link QiSequencer} with no
 * sleep timeout (a lost wakeup is then a waiter that never returns), a {@link
 * ZombieHeadFlushList} with a recycling pool, the QI task, and {@link QiHardware}. Its
 * operations are the four roles of {@code sys/x86/iommu}; {@link QiProtocolScenarios}
 * puts them on threads.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li><b>Progress.</b> Every operation returns. A waiter the QI task never wakes stays
 *       parked; the hardware and the task then finish their work and Lincheck's model
 *       checker reports the execution as hung (deadlocked).</li>
 *   <li><b>No early release</b> (recorded when it happens): an entry's item is released,
 *       or a waiter returns, only after the hardware has completed the wait descriptor
 *       that covers it.</li>
 *   <li><b>Nothing lingers</b> ({@link #validate}, after all threads end): every unloaded
 *       entry has been released exactly once; the hardware has completed every descriptor
 *       and the QI task has run for every interrupt, so an entry still on the list is one
 *       that no later interrupt would release.</li>
 * </ul>
 * A library exception inside an operation is recorded as a violation too. The sequencer,
 * the list, the task and the order of the unmap path come from {@link ModelParts} (the
 * library here; a seeded bug in the seeded-bugs matrix).
 */
public abstract class QiProtocolModel {

    /** Where the sequencer starts, so that the few numbers a scenario uses cross a boundary. */
    public enum Start {
        /** (gen 0, seq 0x7FFFFFFF): the second number is 0x80000000, negative if signed. */
        SIGN_BIT(0, 0x7FFF_FFFF),
        /**
         * (gen 0x7FFFFFFF, seq 0xFFFFFFFE): the second number wraps to (gen 0x80000000, 1)
         * through the extra 0xFFFFFFFF wait descriptor.
         */
        WRAP(0x7FFF_FFFF, 0xFFFF_FFFE);

        /** The first generation. */
        public final int gen;
        /** The first sequence number. */
        public final int seq;

        Start(int gen, int seq) {
            this.gen = gen;
            this.seq = seq;
        }
    }

    /** Item numbers go up to this (exclusive). */
    static final int MAX_ITEM = 16;

    private final ModelParts parts;
    private final ReentrantLock unitLock = new ReentrantLock();
    private final QiHardware hardware = new QiHardware(64);
    private final WaitProtocol protocol;
    private final EntryPool pool = new EntryPool();
    private final TlbFlushList<PoolEntry> list;
    private final Runnable task;
    /** Items unloaded; guarded by the unit lock. */
    private final boolean[] unloaded = new boolean[MAX_ITEM];
    /** Releases per item; written by the task thread only. */
    private final int[] released = new int[MAX_ITEM];
    /** Guarded by itself. */
    private final List<String> violations = new ArrayList<>();

    /**
     * @param parts the sequencer, list, task and unmap order ({@link ModelParts#LIBRARY})
     * @param start where the sequence numbers start
     */
    protected QiProtocolModel(ModelParts parts, Start start) {
        this.parts = parts;
        protocol = parts.protocol(unitLock, hardware, start.gen, start.seq);
        hardware.attach(protocol);
        Reclaimer<PoolEntry> reclaimer = new Reclaimer<>() {
            @Override
            public void releaseItem(PoolEntry entry) {
                if (hardware.completed() <= entry.descriptor) {
                    violation("released item " + entry.item + " " + GenSeq.toString(entry.waitSeq())
                            + " before the hardware completed its wait descriptor");
                }
                released[entry.item]++;
            }

            @Override
            public void retireElement(PoolEntry element) {
                pool.retire(element);
            }
        };
        list = parts.zombieHeadList(new PoolEntry(), reclaimer);
        task = protocol.task(list, hardware);
    }

    /**
     * A synchronous invalidation, as {@code iommu_qi_invalidate_sync}: under the unit
     * lock, {@code quiesce}: emit a wait descriptor, register as a waiter, advance IQT, wait
     * until the sequence is processed (sleeping on the unit lock's condition, no timeout).
     */
    @Operation(blocking = true)
    public void syncInvalidate() {
        try {
            unitLock.lock();
            try {
                long gseq = protocol.quiesce(false);
                int descriptor = hardware.lastIndexOf(GenSeq.seq(gseq));
                if (hardware.completed() <= descriptor) {
                    violation("waiter for " + GenSeq.toString(gseq)
                            + " returned before the hardware completed its wait descriptor");
                }
            } finally {
                unitLock.unlock();
            }
        } catch (RuntimeException | Error e) {
            violation("syncInvalidate threw " + e);
        }
    }

    /**
     * The unmap path, as {@code dmar_domain_unload_entry} then {@code
     * iommu_qi_invalidate_locked}: under the unit lock, emit a wait descriptor with an
     * interrupt, put a pooled entry carrying {@code item} on the flush list, advance IQT.
     *
     * @param item the item, unique within a scenario, below {@link #MAX_ITEM}
     */
    @Operation
    public void unload(int item) {
        try {
            unitLock.lock();
            try {
                unloaded[item] = true;
                long gseq = protocol.emitWaitSeq(true);
                PoolEntry e = pool.obtain();
                int descriptor = hardware.lastEmitted();
                parts.unmap(new ModelParts.UnmapSteps() {
                    @Override
                    public void fill() {
                        e.item = item;
                        e.descriptor = descriptor;
                        e.setWaitSeq(gseq);
                    }

                    @Override
                    public void link() {
                        list.enqueue(e);
                    }

                    @Override
                    public void advanceTail() {
                        hardware.advanceTail();
                    }
                });
            } finally {
                unitLock.unlock();
            }
        } catch (RuntimeException | Error e) {
            violation("unload(" + item + ") threw " + e);
        }
    }

    /**
     * The hardware completes the next wait descriptor: waits until one is published, marks
     * it done, writes its sequence number to the status word, sets ICS.IWC and raises the
     * interrupt on IWC 0 -> 1.
     *
     * @return the sequence number written (unsigned)
     */
    @Operation(blocking = true, nonParallelGroup = "hardware")
    public long completeNextWaitDescriptor() {
        return hardware.completeNext();
    }

    /**
     * The task thread: runs the QI task ({@code dmar_qi_task}) once per queued interrupt
     * until the hardware has completed {@code descriptors} descriptors and no interrupt is
     * pending.
     *
     * @param descriptors the number of wait descriptors the scenario emits
     */
    @Operation(blocking = true, nonParallelGroup = "task")
    public void qiTask(int descriptors) {
        while (hardware.awaitInterrupt(descriptors)) {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                violation("QI task threw " + e);
            }
        }
    }

    /**
     * After every thread ended: no violation was recorded, and every unloaded entry was
     * released exactly once (an entry still on the list was left there by the last task
     * pass: no later interrupt would release it).
     */
    @Validate
    public void validate() {
        List<String> problems;
        synchronized (violations) {
            problems = new ArrayList<>(violations);
        }
        for (int i = 0; i < MAX_ITEM; i++) {
            if (unloaded[i] && released[i] == 0) {
                problems.add("item " + i + " completed by the hardware but still on the flush list"
                        + " after the last QI task pass");
            } else if (released[i] > 1 || (!unloaded[i] && released[i] > 0)) {
                problems.add("item " + i + " released " + released[i] + " times"
                        + (unloaded[i] ? "" : " but never unloaded"));
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("; ", problems));
        }
    }

    private void violation(String what) {
        synchronized (violations) {
            if (violations.size() < 4) {
                violations.add(what);
            }
        }
    }
}
