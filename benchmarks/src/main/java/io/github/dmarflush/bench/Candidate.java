package io.github.dmarflush.bench;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The queues measured side by side. A {@code _LOCKED} suffix (and the two flush lists)
 * means the producers hold the unit lock around the enqueue; without it they enqueue with
 * no lock at all (for the peers that allow concurrent producers, and for SPSC with one
 * producer only). The flush list must be measured under the lock: its producers are
 * serialized by it. Each peer that needs no lock is measured both ways, so the price of
 * the lock is visible next to the price of the queue.
 */
public enum Candidate {
    /** {@code ZombieHeadFlushList}: producers under the unit lock, consumer lock-free. */
    FLUSH_LIST(true, true),
    /** {@code LockedFlushList}: producers under the unit lock, consumer takes it per entry. */
    LOCKED_BASELINE(true, true),
    /** JCTools {@code MpscLinkedQueue}, producers under the unit lock. */
    MPSC_LOCKED(true, true),
    /** JCTools {@code MpscLinkedQueue}, producers without a lock. */
    MPSC(false, true),
    /** JCTools {@code SpscLinkedQueue}, producers under the unit lock (which serializes them). */
    SPSC_LOCKED(true, true),
    /** JCTools {@code SpscLinkedQueue}, no lock: valid with one producer only. */
    SPSC(false, false),
    /** {@code ConcurrentLinkedQueue}, producers under the unit lock. */
    CLQ_LOCKED(true, true),
    /** {@code ConcurrentLinkedQueue}, producers without a lock. */
    CLQ(false, true),
    /** {@code ArrayDeque} under its own lock, producers also under the unit lock. */
    ARRAY_DEQUE_LOCKED(true, true),
    /** {@code ArrayDeque} under its own lock only. */
    ARRAY_DEQUE(false, true);

    /** Whether producers hold the unit lock around the enqueue. */
    public final boolean producersHoldUnitLock;
    /** Whether the candidate is correct with more than one producer. */
    public final boolean multiProducer;

    Candidate(boolean producersHoldUnitLock, boolean multiProducer) {
        this.producersHoldUnitLock = producersHoldUnitLock;
        this.multiProducer = multiProducer;
    }

    /**
     * @param unitLock the unit lock (the locked baseline's consumer takes it)
     * @param work the consumer's per-entry work
     * @param backlog the most entries that can be in flight (sizes the ArrayDeque)
     * @return a new, empty queue
     */
    BenchQueue create(ReentrantLock unitLock, ConsumerWork work, int backlog) {
        switch (this) {
            case FLUSH_LIST:
                return new BenchQueue.FlushList(work);
            case LOCKED_BASELINE:
                return new BenchQueue.LockedBaseline(work, unitLock);
            case MPSC_LOCKED:
            case MPSC:
                return new BenchQueue.Mpsc(work);
            case SPSC_LOCKED:
            case SPSC:
                return new BenchQueue.Spsc(work);
            case CLQ_LOCKED:
            case CLQ:
                return new BenchQueue.Clq(work);
            case ARRAY_DEQUE_LOCKED:
            case ARRAY_DEQUE:
                return new BenchQueue.LockedArrayDeque(work, backlog);
            default:
                throw new AssertionError(this);
        }
    }
}
