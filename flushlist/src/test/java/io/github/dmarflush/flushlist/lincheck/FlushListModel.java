package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.variants.BrokenZombieHeadFlushList;
import io.github.dmarflush.flushlist.variants.Variant;
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
 * {@code 0x7FFFFFFF -> 0x80000000}, where a signed comparison goes wrong.
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

    private final Variant variant;
    private final ReentrantLock unitLock = new ReentrantLock();
    private final ListHardware hardware = new ListHardware(256);
    private final QiSequencer sequencer;
    private final EntryPool pool = new EntryPool();
    private final TlbFlushList<PoolEntry> list;
    /** The items released by the drain in progress; consumer only. */
    private Items releasing;

    protected FlushListModel(Impl impl, Variant variant) {
        this.variant = variant;
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
        if (variant.component() == Variant.Component.LIST) {
            if (impl != Impl.ZOMBIE_HEAD) {
                throw new IllegalArgumentException("list variants are of the zombie-head list");
            }
            list = new BrokenZombieHeadFlushList<>(variant, new PoolEntry(), reclaimer);
        } else if (impl == Impl.ZOMBIE_HEAD) {
            list = new ZombieHeadFlushList<>(new PoolEntry(), reclaimer);
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
            if (variant == Variant.M2_LINK_BEFORE_FILL) {
                list.enqueue(e); // BROKEN: published with the previous owner's fields
                e.setWaitSeq(gseq);
                e.item = item;
            } else {
                e.setWaitSeq(gseq);
                e.item = item;
                list.enqueue(e);
            }
            hardware.advanceTail();
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
