package io.github.dmarflush.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the consumer does with each entry it dequeues, the same for every candidate: for the
 * two flush lists it runs inside {@code Reclaimer.releaseItem}, for the peer queues right
 * after {@code poll}. Each fork runs one workload, so the JIT sees one subclass.
 *
 * <p>Every variant first checks FIFO per producer: entries of producer {@code p} must arrive
 * with order 1, 2, 3, ... A lost, duplicated or reordered entry throws
 * {@link IllegalStateException}, which fails the benchmark (and the smoke test).
 *
 * <p>Consumer thread only.
 */
public abstract class ConsumerWork {

    private final long[] nextOrder;

    ConsumerWork(int producers) {
        nextOrder = new long[producers];
        java.util.Arrays.fill(nextOrder, 1L);
    }

    /** Checks order, then does the workload's per-entry work. */
    final void accept(BenchEntry e) {
        int p = e.producer;
        long expected = nextOrder[p];
        if (e.order != expected) {
            throw new IllegalStateException("FIFO broken: expected order " + expected
                    + " from producer " + p + ", dequeued " + e);
        }
        nextOrder[p] = expected + 1;
        process(e);
    }

    /** The workload's per-entry work. */
    abstract void process(BenchEntry e);

    /** The bare-queue floor: no work beyond the FIFO check. */
    static final class None extends ConsumerWork {
        None(int producers) {
            super(producers);
        }

        @Override
        void process(BenchEntry e) {
            // nothing: the floor
        }
    }

    /**
     * Frees the entry's IOVA range: {@code tokens} of {@link Blackhole#consumeCPU} while
     * holding the domain lock, as {@code iommu_gas_free_space} removes the range from the
     * domain's red-black tree under {@code IOMMU_DOMAIN_LOCK}. The producers take the same
     * domain lock to allocate ranges.
     */
    static final class FreeIova extends ConsumerWork {
        private final ReentrantLock domainLock;
        private final long tokens;

        FreeIova(int producers, ReentrantLock domainLock, long tokens) {
            super(producers);
            this.domainLock = domainLock;
            this.tokens = tokens;
        }

        @Override
        void process(BenchEntry e) {
            domainLock.lock();
            try {
                Blackhole.consumeCPU(tokens);
            } finally {
                domainLock.unlock();
            }
        }
    }

    /**
     * Records {@code nanoTime() - e.enqueuedAtNanos} (enqueue-to-drain latency, ns) while
     * {@link #recording} is set (measurement iterations only).
     */
    static final class RecordLatency extends ConsumerWork {
        static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(10);
        /** ns, 3 significant digits; fixed range so recording never allocates. */
        final Histogram histogram = new Histogram(MAX_NANOS, 3);
        /** Set between iterations (no benchmark thread runs then). */
        boolean recording;

        RecordLatency(int producers) {
            super(producers);
        }

        @Override
        void process(BenchEntry e) {
            long latency = System.nanoTime() - e.enqueuedAtNanos;
            if (recording) {
                histogram.recordValue(Math.min(Math.max(latency, 0), MAX_NANOS));
            }
        }
    }
}
