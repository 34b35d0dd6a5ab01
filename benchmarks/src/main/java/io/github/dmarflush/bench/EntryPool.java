package io.github.dmarflush.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Padding through a class hierarchy, as in ZombieHeadFlushList: the producer's index and
 * the consumer's index sit on different 128-byte spans.
 */

abstract class PoolPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class PoolTakeFields extends PoolPad0 {
    /** Producer only (plain): the next slot to take from. */
    long takeIndex;
    /** Producer only (plain): the last value of putIndex the producer read. */
    long putIndexCache;
}

abstract class PoolPad1 extends PoolTakeFields {
    long q00, q01, q02, q03, q04, q05, q06, q07;
    long q08, q09, q10, q11, q12, q13, q14, q15;
}

abstract class PoolPutFields extends PoolPad1 {
    /** Written by the consumer only, with a release store; read by the producer, acquire. */
    long putIndex;
}

abstract class PoolPad2 extends PoolPutFields {
    long r00, r01, r02, r03, r04, r05, r06, r07;
    long r08, r09, r10, r11, r12, r13, r14, r15;
}

/**
 * The free entries of one producer: a single-producer single-consumer ring in which the
 * benchmark's producer thread <em>takes</em> entries and the consumer thread <em>puts</em>
 * them back once it is done with them. Every candidate uses the same pool, so the pool's
 * cost (one acquire load, usually cached, per take; one release store per put) is in every
 * figure alike, and no candidate allocates an entry while it is measured.
 *
 * <h2>Why it bounds the backlog</h2>
 * A pool owns exactly {@code capacity} entries and never makes more. An entry taken from it
 * is in flight (in the queue, or being processed) until the consumer puts it back, so each
 * producer has at most {@code capacity} entries in flight; when its pool is empty the
 * producer backs off until the consumer has returned some. The unbounded queues under test
 * therefore never grow past {@code producers * capacity} entries, and a throughput figure
 * is a rate of entries that went all the way through, not of memory growth.
 *
 * <h2>Implementation notes</h2>
 * The ring cannot overflow: only entries taken from it come back, so when the consumer
 * writes slot {@code putIndex} at most {@code capacity - 1} entries are in the ring and
 * that slot is free. The producer's read of a slot happens before it hands the entry to a
 * queue, which happens before the consumer gets it back, which happens before the consumer
 * writes that slot again. The producer reads {@code putIndex} with an acquire load that
 * pairs with the consumer's release store, so it sees the entry written into each slot.
 *
 * <h2>Thread-safety</h2>
 * {@link #take()}: one producer thread. {@link #put(BenchEntry)}: one consumer thread.
 */
public final class EntryPool extends PoolPad2 {

    /**
     * A deliberately broken pool for the negative smoke test, selected with the system
     * property {@code flushbench.fault=reissue}: every 64th take hands out the entry taken
     * just before it a second time. For the flush list that entry is certainly still on
     * the list (it is the tail, or the zombie: an element is retired only once its
     * successor is dequeued), so the enqueue must throw {@code EntryStillLinkedException}.
     */
    static final boolean FAULT_REISSUE = "reissue".equals(System.getProperty("flushbench.fault"));

    private static final VarHandle PUT_INDEX;

    static {
        try {
            PUT_INDEX = MethodHandles.lookup().findVarHandle(PoolPutFields.class, "putIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BenchEntry[] slots;
    private final int mask;

    /**
     * Creates a full pool of {@code capacity} new entries owned by producer {@code producer}.
     *
     * @param capacity entries in the pool, a power of two, at least 2
     * @param producer the owning producer's index
     * @throws IllegalArgumentException if capacity is not a power of two of at least 2
     */
    public EntryPool(int capacity, int producer) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2: " + capacity);
        }
        slots = new BenchEntry[capacity];
        mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            slots[i] = new BenchEntry(this, producer);
        }
        takeIndex = 0;
        putIndexCache = capacity;
        PUT_INDEX.setRelease(this, (long) capacity);
    }

    /** @return the number of entries the pool owns */
    public int capacity() {
        return slots.length;
    }

    /**
     * Takes a free entry. Producer thread only.
     *
     * @return a free entry, or null if all of this pool's entries are in flight
     */
    public BenchEntry take() {
        long t = takeIndex;
        if (t >= putIndexCache) {
            putIndexCache = (long) PUT_INDEX.getAcquire(this);
            if (t >= putIndexCache) {
                return null;
            }
        }
        BenchEntry e = slots[(int) t & mask];
        takeIndex = t + 1;
        if (FAULT_REISSUE && (t & 63) == 63) {
            return slots[(int) (t - 1) & mask]; // the previous entry, still in flight
        }
        return e;
    }

    /**
     * Returns an entry taken from this pool. Consumer thread only.
     *
     * @param e an entry of this pool that is no longer on any queue
     */
    void put(BenchEntry e) {
        long p = putIndex; // plain: only this (consumer) thread writes it
        slots[(int) p & mask] = e;
        PUT_INDEX.setRelease(this, p + 1);
    }
}
