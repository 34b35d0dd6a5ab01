package io.github.dmarflush.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.Control;

/**
 * Workload 1, the realistic scenario (docs/DESIGN.md section 7): two producers unmap under the
 * unit lock and one consumer (the QI task) frees IOVA space per entry.
 *
 * <p>Per entry, a producer
 * <ol>
 *   <li>allocates an IOVA range: {@code map} tokens of {@link Blackhole#consumeCPU} under
 *       the domain lock ({@code iommu_gas_map});</li>
 *   <li>does the work of its packet with no lock held: {@code outside} tokens;</li>
 *   <li>unmaps: takes the unit lock, emits the IOTLB invalidation and wait descriptors
 *       ({@code emit} tokens, the descriptor emission and ring-space check of
 *       {@code iommu_qi_invalidate_locked}), takes the next wait sequence number, enqueues
 *       the entry, unlocks.</li>
 * </ol>
 * The consumer, per entry, frees the IOVA range: {@code free} tokens under the domain lock
 * ({@code iommu_gas_free_space}), then returns the entry to its pool. The flush list's
 * consumer drains without the unit lock; the locked baseline's drain takes the unit lock
 * for every entry, dropping it around the free, as the pre-2022 {@code dmar_qi_task}. Each
 * peer's consumer polls with no unit lock and does the same free.
 *
 * <p>The token counts are the parameter {@link Unit#tokens}: a balanced profile and a
 * unit-lock-bound one.
 *
 * <p>Only candidates whose producers hold the unit lock are run: the enqueue must happen
 * under the lock that hands out the wait sequence numbers, or the list would not be in
 * sequence order and a drain that stops at the first unprocessed entry would be wrong.
 * The figure to read is the {@link Drained drained} rate (entries/s through the queue).
 * Three threads on two CPUs: oversubscribed.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RealisticBenchmark {

    /** The shared state of one trial. */
    @State(Scope.Group)
    public static class Unit extends Rig {
        /** The queue under test. */
        @Param({"FLUSH_LIST", "LOCKED_BASELINE", "MPSC_LOCKED", "SPSC_LOCKED", "CLQ_LOCKED",
                "ARRAY_DEQUE_LOCKED"})
        public Candidate candidate;

        /**
         * The work per entry, in {@link Blackhole#consumeCPU} tokens,
         * {@code map/outside/emit/free}:
         * <ul>
         *   <li>{@code map}: producer, under the domain lock (IOVA allocation);</li>
         *   <li>{@code outside}: producer, no lock held (the rest of the packet's work);</li>
         *   <li>{@code emit}: producer, under the unit lock (descriptor emission);</li>
         *   <li>{@code free}: consumer, per entry, under the domain lock (IOVA free).</li>
         * </ul>
         * {@code 40/120/100/60} is the balanced default; {@code 40/0/300/60} makes the unit
         * lock the bottleneck (producers spend most of their time holding or waiting for
         * it), the regime of FreeBSD's netperf measurement.
         */
        @Param({"40/120/100/60", "40/0/300/60"})
        public String tokens;

        long mapTokens;
        long outsideTokens;
        long emitTokens;
        long freeTokens;

        /** Builds the queue, the pools and the consumer work. */
        @Setup(Level.Trial)
        public void setUp() {
            if (!candidate.producersHoldUnitLock) {
                throw new IllegalArgumentException(candidate + ": the realistic workload enqueues under the unit lock");
            }
            String[] t = tokens.split("/");
            if (t.length != 4) {
                throw new IllegalArgumentException("tokens must be map/outside/emit/free: " + tokens);
            }
            mapTokens = Long.parseLong(t[0]);
            outsideTokens = Long.parseLong(t[1]);
            emitTokens = Long.parseLong(t[2]);
            freeTokens = Long.parseLong(t[3]);
            setUp(candidate, 2, new ConsumerWork.FreeIova(2, domainLock, freeTokens));
        }
    }

    /** A producer thread's pool and order counter. */
    @State(Scope.Thread)
    public static class Producer extends Rig.ProducerSide {
    }

    /** One unmap per call (per producer thread). */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(2)
    public void produce(Unit unit, Producer p, Control control) {
        BenchEntry e = p.next(unit, control);
        if (e == null) {
            return;
        }
        ReentrantLock domain = unit.domainLock;
        domain.lock();
        try {
            Blackhole.consumeCPU(unit.mapTokens);
        } finally {
            domain.unlock();
        }
        Blackhole.consumeCPU(unit.outsideTokens);
        ReentrantLock dmar = unit.unitLock;
        dmar.lock();
        try {
            Blackhole.consumeCPU(unit.emitTokens);
            e.setWaitSeq(++unit.nextSeq);
            unit.queue.offer(e);
        } finally {
            dmar.unlock();
        }
    }

    /** One QI task pass per call; yields when it found nothing. */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(1)
    public int consume(Unit unit, Drained d) {
        int n = unit.queue.drain();
        d.drained += n;
        if (n == 0) {
            Thread.yield();
        }
        return n;
    }
}
