package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.concurrent.locks.ReentrantLock;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The object Lincheck tests for a {@link TlbFlushList}: one list, its unit lock, a
 * recycling pool of elements, a real {@link QiSequencer} that hands out the wait sequence
 * numbers and answers the drain's processed test, and the invalidation ring with its
 * hardware. Checked against {@link FifoSpec}.
 *
 * <h2>The contract, as operations</h2>
 * <ul>
 *   <li>{@link #enqueue}: any thread. Takes the unit lock, as {@code
 *       iommu_qi_invalidate_locked}'s caller does: gets (gen, seq) from
 *       {@code emitWaitSeq(true)}, fills a pooled element, links it, advances IQT.</li>
 *   <li>{@link #completeNextWaitDescriptor}: the hardware, one thread (non-parallel group
 *       {@code "hardware"}): status write of the next published wait descriptor.</li>
 *   <li>{@link #drain}: the QI task, exactly one consumer (non-parallel group
 *       {@code "consumer"}), without the lock; returns the items released, in order.</li>
 * </ul>
 * Sequence numbers start at {@link #START_SEQ}, so a scenario of a few enqueues crosses
 * {@code 0x7FFFFFFF -> 0x80000000}, where a signed comparison goes wrong. The zombie-head
 * list and the order of the unmap path come from {@link ModelParts} (the library here; a
 * seeded bug in the seeded-bugs matrix).
 */
@Param(name = "item", gen = IntGen.class, conf = "1:9")
public abstract class FlushListModel {

    /** The first sequence number handed out. */
    public static final int START_SEQ = 0x7FFF_FFFD;

    /** Which list implementation. */
    public enum Impl {
        /** {@link ZombieHeadFlushList}. */
        ZOMBIE_HEAD,
        /** {@link LockedFlushList}, the pre-2022 baseline. */
        LOCKED
    }

    private final ModelParts parts;
    private final ReentrantLock unitLock = new ReentrantLock();
    private final ListHardware hardware = new ListHardware(256);
    private final QiSequencer sequencer;
    private final EntryPool pool = new EntryPool();
    private final TlbFlushList<PoolEntry> list;
    /** The items released by the drain in progress; consumer only. */
    private Items releasing;

    /**
     * @param impl which list
     * @param parts where the zombie-head list and the unmap order come from
     */
    protected FlushListModel(Impl impl, ModelParts parts) {
        this.parts = parts;
        this.sequencer = QiSequencer.builder(unitLock, hardware).startAt(0, START_SEQ).build();
        hardware.attach(sequencer);
        Reclaimer<PoolEntry> reclaimer = new Reclaimer<>() {
            @Override
            public void releaseItem(PoolEntry entry) {
                releasing.add(entry.item);
            }

            @Override
            public void retireElement(PoolEntry element) {
                pool.retire(element);
            }
        };
        if (impl == Impl.ZOMBIE_HEAD) {
            list = parts.zombieHeadList(new PoolEntry(), reclaimer);
        } else {
            list = new LockedFlushList<>(unitLock, reclaimer);
        }
    }

    /**
     * The unmap path: under the unit lock, takes the next (gen, seq) with a wait
     * descriptor, fills a pooled element with it and {@code item}, links the element,
     * then advances IQT.
     *
     * @param item the item the element carries
     * @return the packed (gen, seq) the entry waits for
     */
    @Operation
    public long enqueue(@Param(name = "item") int item) {
        unitLock.lock();
        try {
            long gseq = sequencer.emitWaitSeq(true);
            PoolEntry e = pool.obtain();
            parts.unmap(new ModelParts.UnmapSteps() {
                @Override
                public void fill() {
                    e.setWaitSeq(gseq);
                    e.item = item;
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
            return gseq;
        } finally {
            unitLock.unlock();
        }
    }

    /**
     * The hardware processes the next published wait descriptor.
     *
     * @return the sequence number it wrote to the status word (unsigned), or -1 if none
     *     was published
     */
    @Operation(nonParallelGroup = "hardware")
    public long completeNextWaitDescriptor() {
        return hardware.completeNext();
    }

    /**
     * The QI task's drain, with the sequencer as the processed test.
     *
     * @return the items released, in release order
     */
    @Operation(nonParallelGroup = "consumer")
    public Items drain() {
        releasing = new Items();
        int n = list.drain(sequencer);
        if (n != releasing.size()) {
            throw new IllegalStateException("drain() returned " + n + " but released " + releasing);
        }
        return releasing;
    }
}
