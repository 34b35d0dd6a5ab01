package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What {@link FlushListModel} and {@link QiProtocolModel} are built from: {@link #LIBRARY},
 * the shipped classes in the order {@code iommu_qi_invalidate_locked} uses them, for the
 * tests of this package; the seeded-bugs module supplies broken parts to run the same checks
 * on its variants.
 */
public interface ModelParts {

    /** The shipped library. */
    ModelParts LIBRARY = new ModelParts() {
    };

    /**
     * The last steps of the unmap path, under the unit lock, in {@link #unmap}'s order.
     */
    interface UnmapSteps {
        /** Writes the entry's wait sequence and item. */
        void fill();

        /** Links the entry on the flush list. */
        void link();

        /** Advances IQT past the entry's wait descriptor. */
        void advanceTail();
    }

    /**
     * @param dummy the first zombie
     * @param reclaimer the callbacks
     * @return a zombie-head flush list
     */
    default TlbFlushList<PoolEntry> zombieHeadList(PoolEntry dummy, Reclaimer<PoolEntry> reclaimer) {
        return new ZombieHeadFlushList<>(dummy, reclaimer);
    }

    /**
     * The protocol, with no sleep timeout (a lost wakeup is then a waiter that never returns).
     *
     * @param unitLock the unit lock
     * @param queue the invalidation queue
     * @param gen the first generation
     * @param seq the first sequence number
     * @return the protocol
     */
    default WaitProtocol protocol(ReentrantLock unitLock, InvalidationQueue queue, int gen, int seq) {
        return WaitProtocol.library(QiSequencer.builder(unitLock, queue)
                .startAt(gen, seq)
                .sleepTimeout(0, TimeUnit.NANOSECONDS)
                .build());
    }

    /**
     * Runs the unmap path's last steps: fill, link, advance IQT.
     *
     * @param s the steps
     */
    default void unmap(UnmapSteps s) {
        s.fill();
        s.link();
        s.advanceTail();
    }
}
