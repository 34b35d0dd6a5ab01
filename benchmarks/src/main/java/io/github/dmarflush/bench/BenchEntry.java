package io.github.dmarflush.bench;

import io.github.dmarflush.flushlist.FlushEntry;

/**
 * The element every candidate moves: a flush-list entry (so the zombie-head list and the
 * locked baseline link it intrusively) that the peer queues carry as a plain reference.
 *
 * <p>Each entry belongs to one producer's {@link EntryPool} for its whole life and goes back
 * to it when the consumer is done with it, so no candidate allocates entries while it is
 * measured. The fields are written by the producer before the enqueue that publishes them
 * and read by the consumer after the dequeue; every candidate's enqueue/dequeue pair is a
 * release/acquire (or lock) handoff, so they may be plain.
 */
public final class BenchEntry extends FlushEntry {

    /** The pool this entry returns to; null for the flush list's initial dummy zombie. */
    final EntryPool pool;
    /** Index of the producer that owns {@link #pool}. */
    final int producer;
    /** 1, 2, 3, ... per producer, in enqueue order: the consumer checks FIFO with it. */
    long order;
    /** {@link System#nanoTime()} just before the enqueue; used by the latency workload. */
    long enqueuedAtNanos;

    BenchEntry(EntryPool pool, int producer) {
        this.pool = pool;
        this.producer = producer;
    }

    /** Gives the entry back to its producer's pool. Consumer thread only. */
    void recycle() {
        if (pool != null) {
            pool.put(this);
        }
    }

    @Override
    public String toString() {
        return "BenchEntry[producer " + producer + ", order " + order + "]";
    }
}
