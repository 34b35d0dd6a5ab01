package io.github.dmarflush.bench;

import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.Control;

/**
 * Workload 1, the floor: producers take a free entry, take the unit lock (if the candidate
 * needs it), enqueue, unlock; one consumer drains everything available and does nothing
 * per entry but the FIFO check and the return to the pool. Producers and consumer run
 * concurrently in one JMH group.
 *
 * <p>The figure to read is the {@link Drained drained} rate: entries per second that went
 * all the way through the queue. The {@code produce*} rate (entries enqueued per second,
 * summed over producers) agrees with it to within the backlog bound: a producer can have at
 * most {@link Rig#POOL_CAPACITY} entries in flight. The {@code consume*} rate counts drain
 * passes, of any size, and means nothing by itself; JMH's group total adds it in and means
 * nothing either. A consumer pass that finds nothing yields the CPU, as a producer with no
 * free entry does.
 *
 * <p>{@code oneProducer}: 2 threads on the 2 CPUs. {@code twoProducers}: 3 threads on 2
 * CPUs, oversubscribed; {@code SPSC} without a lock is left out (one producer only).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BareQueueBenchmark {

    /** One producer, one consumer. */
    @State(Scope.Group)
    public static class OneProducer extends Rig {
        /** The queue under test. */
        @Param
        public Candidate candidate;

        /** Builds the queue and the pool. */
        @Setup(Level.Trial)
        public void setUp() {
            setUp(candidate, 1, new ConsumerWork.None(1));
        }
    }

    /** Two producers, one consumer. */
    @State(Scope.Group)
    public static class TwoProducers extends Rig {
        /** The queue under test (every multi-producer candidate). */
        @Param({"FLUSH_LIST", "LOCKED_BASELINE", "MPSC_LOCKED", "MPSC", "SPSC_LOCKED",
                "CLQ_LOCKED", "CLQ", "ARRAY_DEQUE_LOCKED", "ARRAY_DEQUE"})
        public Candidate candidate;

        /** Builds the queue and the pools. */
        @Setup(Level.Trial)
        public void setUp() {
            setUp(candidate, 2, new ConsumerWork.None(2));
        }
    }

    /** A producer thread's pool and order counter. */
    @State(Scope.Thread)
    public static class Producer extends Rig.ProducerSide {
    }

    private static void produce(Rig rig, Producer p, Control control) {
        BenchEntry e = p.next(rig, control);
        if (e == null) {
            return;
        }
        e.setWaitSeq(e.order);
        rig.enqueue(e);
    }

    private static int consume(Rig rig, Drained d) {
        int n = rig.queue.drain();
        d.drained += n;
        if (n == 0) {
            Thread.yield();
        }
        return n;
    }

    /** Producer of {@code oneProducer}: one enqueue per call. */
    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public void produce1(OneProducer rig, Producer p, Control control) {
        produce(rig, p, control);
    }

    /** Consumer of {@code oneProducer}: one drain pass per call. */
    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public int consume1(OneProducer rig, Drained d) {
        return consume(rig, d);
    }

    /** Producers of {@code twoProducers}: one enqueue per call. */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(2)
    public void produce2(TwoProducers rig, Producer p, Control control) {
        produce(rig, p, control);
    }

    /** Consumer of {@code twoProducers}: one drain pass per call. */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(1)
    public int consume2(TwoProducers rig, Drained d) {
        return consume(rig, d);
    }
}
