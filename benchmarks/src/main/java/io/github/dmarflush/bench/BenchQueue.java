package io.github.dmarflush.bench;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jctools.queues.MpscLinkedQueue;
import org.jctools.queues.SpscLinkedQueue;

/**
 * One candidate queue with its consumer loop: {@link #offer} is the producer's enqueue
 * (called with the unit lock held or not, as the {@link Candidate} says), {@link #drain}
 * is one pass of the consumer: dequeue everything available, hand each entry to the
 * {@link ConsumerWork}, and give it back to its pool.
 *
 * <p>Each implementation is a final class with a concretely typed queue field, so the
 * calls on the hot path are monomorphic.
 */
public abstract class BenchQueue {

    /**
     * The flush lists' stop condition in every benchmark: always processed. The benchmarks
     * measure the list and its locking, not a hardware queue; an entry is drainable as soon
     * as it is enqueued, as for the peer queues, which have no stop condition at all.
     */
    static final SeqProcessed ALWAYS_PROCESSED = gseq -> true;

    final ConsumerWork work;

    BenchQueue(ConsumerWork work) {
        this.work = work;
    }

    /** Producer side; the caller holds the unit lock if the candidate needs it. */
    abstract void offer(BenchEntry e);

    /**
     * Consumer side: one pass over what is available.
     *
     * @return entries dequeued and processed
     */
    abstract int drain();

    /**
     * The flush lists' callbacks: the item release is the consumer work; the element
     * retirement recycles the element (for the zombie-head list, the old zombie).
     */
    static final class Recycler implements Reclaimer<BenchEntry> {
        private final ConsumerWork work;

        Recycler(ConsumerWork work) {
            this.work = work;
        }

        @Override
        public void releaseItem(BenchEntry entry) {
            work.accept(entry);
        }

        @Override
        public void retireElement(BenchEntry element) {
            element.recycle();
        }
    }

    /** {@link ZombieHeadFlushList}: consumer takes no lock. */
    static final class FlushList extends BenchQueue {
        private final ZombieHeadFlushList<BenchEntry> list;

        FlushList(ConsumerWork work) {
            super(work);
            list = new ZombieHeadFlushList<>(new BenchEntry(null, -1), new Recycler(work));
        }

        @Override
        void offer(BenchEntry e) {
            list.enqueue(e);
        }

        @Override
        int drain() {
            return list.drain(ALWAYS_PROCESSED);
        }
    }

    /** {@link LockedFlushList}: the consumer takes the unit lock once per entry. */
    static final class LockedBaseline extends BenchQueue {
        private final LockedFlushList<BenchEntry> list;

        LockedBaseline(ConsumerWork work, ReentrantLock unitLock) {
            super(work);
            list = new LockedFlushList<>(unitLock, new Recycler(work));
        }

        @Override
        void offer(BenchEntry e) {
            list.enqueue(e);
        }

        @Override
        int drain() {
            return list.drain(ALWAYS_PROCESSED);
        }
    }

    /** JCTools {@link MpscLinkedQueue}: a node allocated per offer. */
    static final class Mpsc extends BenchQueue {
        private final MpscLinkedQueue<BenchEntry> q = new MpscLinkedQueue<>();

        Mpsc(ConsumerWork work) {
            super(work);
        }

        @Override
        void offer(BenchEntry e) {
            q.offer(e);
        }

        @Override
        int drain() {
            int n = 0;
            BenchEntry e;
            while ((e = q.poll()) != null) {
                work.accept(e);
                e.recycle();
                n++;
            }
            return n;
        }
    }

    /** JCTools {@link SpscLinkedQueue}: a node allocated per offer; one producer at a time. */
    static final class Spsc extends BenchQueue {
        private final SpscLinkedQueue<BenchEntry> q = new SpscLinkedQueue<>();

        Spsc(ConsumerWork work) {
            super(work);
        }

        @Override
        void offer(BenchEntry e) {
            q.offer(e);
        }

        @Override
        int drain() {
            int n = 0;
            BenchEntry e;
            while ((e = q.poll()) != null) {
                work.accept(e);
                e.recycle();
                n++;
            }
            return n;
        }
    }

    /** {@link ConcurrentLinkedQueue}: a node allocated per offer. */
    static final class Clq extends BenchQueue {
        private final ConcurrentLinkedQueue<BenchEntry> q = new ConcurrentLinkedQueue<>();

        Clq(ConsumerWork work) {
            super(work);
        }

        @Override
        void offer(BenchEntry e) {
            q.offer(e);
        }

        @Override
        int drain() {
            int n = 0;
            BenchEntry e;
            while ((e = q.poll()) != null) {
                work.accept(e);
                e.recycle();
                n++;
            }
            return n;
        }
    }

    /**
     * An {@link ArrayDeque} guarded by its own {@link ReentrantLock} (not the unit lock):
     * the producer takes it around {@code addLast}, the consumer around each
     * {@code pollFirst}. Sized for the whole backlog, so it never grows while measured.
     */
    static final class LockedArrayDeque extends BenchQueue {
        private final ReentrantLock lock = new ReentrantLock();
        private final ArrayDeque<BenchEntry> q;

        LockedArrayDeque(ConsumerWork work, int capacity) {
            super(work);
            q = new ArrayDeque<>(capacity + 1);
        }

        @Override
        void offer(BenchEntry e) {
            lock.lock();
            try {
                q.addLast(e);
            } finally {
                lock.unlock();
            }
        }

        @Override
        int drain() {
            int n = 0;
            for (;;) {
                BenchEntry e;
                lock.lock();
                try {
                    e = q.pollFirst();
                } finally {
                    lock.unlock();
                }
                if (e == null) {
                    return n;
                }
                work.accept(e);
                e.recycle();
                n++;
            }
        }
    }
}
