package io.github.dmarflush.bench;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.infra.Control;

/**
 * What one benchmark trial shares between its producers and its consumer: the candidate
 * queue, the unit lock, the domain lock and one {@link EntryPool} per producer. The JMH
 * state classes of each benchmark extend it and call {@link #setUp} from their
 * {@code @Setup(Level.Trial)}; entries left in the queue at the end of an iteration are
 * drained in the next one, so the FIFO check runs across the whole trial.
 */
public class Rig {

    /**
     * Entries per producer pool: the most entries one producer can have in flight. A
     * producer whose entries are all in flight backs off (yields) until the consumer returns
     * one.
     */
    public static final int POOL_CAPACITY = 512;

    Candidate chosen;
    BenchQueue queue;
    /** The DMAR unit lock ({@code dmarhw}). */
    final ReentrantLock unitLock = new ReentrantLock();
    /** The domain lock ({@code iodom}), used by the realistic workload. */
    final ReentrantLock domainLock = new ReentrantLock();
    /** Whether producers take {@link #unitLock} around the enqueue. */
    boolean producersLock;
    /** The wait sequence handed out under the unit lock (realistic workload). */
    long nextSeq;
    private EntryPool[] pools;
    private final AtomicInteger claimed = new AtomicInteger();

    /**
     * @param c the candidate
     * @param producers producer threads in the group
     * @param work the consumer's per-entry work
     * @throws IllegalArgumentException if the candidate does not allow that many producers
     */
    final void setUp(Candidate c, int producers, ConsumerWork work) {
        setUp(c, producers, work, POOL_CAPACITY);
    }

    /**
     * @param c the candidate
     * @param producers producer threads in the group
     * @param work the consumer's per-entry work
     * @param poolCapacity entries per producer pool (a power of two, at least 2): the most
     *     entries one producer can have in flight
     * @throws IllegalArgumentException if the candidate does not allow that many producers
     */
    final void setUp(Candidate c, int producers, ConsumerWork work, int poolCapacity) {
        if (producers > 1 && !c.multiProducer) {
            throw new IllegalArgumentException(c + " allows one producer only");
        }
        chosen = c;
        producersLock = c.producersHoldUnitLock;
        pools = new EntryPool[producers];
        for (int i = 0; i < producers; i++) {
            pools[i] = new EntryPool(poolCapacity, i);
        }
        queue = c.create(unitLock, work, producers * poolCapacity);
    }

    /** Hands the next unclaimed pool to a producer thread. */
    final EntryPool claimPool() {
        int i = claimed.getAndIncrement();
        if (i >= pools.length) {
            throw new IllegalStateException("more producer threads than pools: " + (i + 1));
        }
        return pools[i];
    }

    /** Enqueues {@code e}, under the unit lock if the candidate's producers take it. */
    final void enqueue(BenchEntry e) {
        if (producersLock) {
            ReentrantLock l = unitLock;
            l.lock();
            try {
                queue.offer(e);
            } finally {
                l.unlock();
            }
        } else {
            queue.offer(e);
        }
    }

    /**
     * A deliberately broken producer for the negative smoke test, selected with the system
     * property {@code flushbench.fault=skip}: every 64th entry skips an order number, as if
     * an entry had been lost. The consumer's FIFO check must throw.
     */
    static final boolean FAULT_SKIP = "skip".equals(System.getProperty("flushbench.fault"));

    /**
     * A producer thread's view: its pool and its order counter.
     */
    public static class ProducerSide {
        private EntryPool pool;
        private long order;

        /**
         * The next free entry of this producer, stamped with the next order; backs off
         * with {@link Thread#yield()} while all of them are in flight.
         *
         * @return the entry, or null if the iteration ended while waiting
         */
        final BenchEntry next(Rig rig, Control control) {
            EntryPool p = pool;
            if (p == null) {
                p = pool = rig.claimPool();
            }
            BenchEntry e;
            while ((e = p.take()) == null) {
                if (control.stopMeasurement) {
                    return null;
                }
                Thread.yield();
            }
            e.order = ++order;
            if (FAULT_SKIP && (order & 63) == 63) {
                e.order = ++order;
            }
            return e;
        }
    }
}
