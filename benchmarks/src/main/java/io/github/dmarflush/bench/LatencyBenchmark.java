package io.github.dmarflush.bench;

import java.io.IOException;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Workload 2: enqueue-to-drain latency. One producer stamps {@link System#nanoTime()} into
 * the entry, enqueues it (under the unit lock if the candidate needs it), then paces itself
 * with {@link #paceTokens} of {@link Blackhole#consumeCPU} outside any lock, so the queue
 * is mostly empty and the figure is the handoff, not a backlog; its pool holds only
 * {@link Paced#IN_FLIGHT} entries. The consumer spins
 * ({@link Thread#onSpinWait()}) on empty drains, and records {@code nanoTime()} minus the
 * stamp for each entry in an HdrHistogram (ns, 3 significant digits) during measurement
 * iterations only.
 *
 * <p>JMH's own score for this group (calls per second) is not the result. At the end of
 * the trial the histogram is printed and, when the system property
 * {@value LatencyLog#PROPERTY} names a file, appended to it for the report
 * ({@link LatencyLog}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class LatencyBenchmark {

    /** The shared state of one trial. */
    @State(Scope.Group)
    public static class Paced extends Rig {
        /**
         * At most 16 entries in flight: when the consumer loses its CPU (the machine is
         * shared) the producer soon stalls instead of queueing hundreds of entries behind
         * it, so the percentiles describe handoffs rather than a backlog.
         */
        static final int IN_FLIGHT = 16;

        /** The queue under test. */
        @Param
        public Candidate candidate;

        /** Producer pause between two enqueues, outside any lock. */
        @Param("300")
        public long paceTokens;

        ConsumerWork.RecordLatency latency;

        /** Builds the queue, the pool and the histogram. */
        @Setup(Level.Trial)
        public void setUp() {
            latency = new ConsumerWork.RecordLatency(1);
            setUp(candidate, 1, latency, IN_FLIGHT);
        }

        /** Records during measurement iterations only. */
        @Setup(Level.Iteration)
        public void iteration(IterationParams params) {
            latency.recording = params.getType() == IterationType.MEASUREMENT;
        }

        /** Prints the percentiles and appends the histogram to the latency log. */
        @TearDown(Level.Trial)
        public void report() throws IOException {
            LatencyLog.write(candidate.name(), latency.histogram);
        }
    }

    /** The producer thread's pool and order counter. */
    @State(Scope.Thread)
    public static class Producer extends Rig.ProducerSide {
    }

    /** One stamped enqueue, then the pause. */
    @Benchmark
    @Group("paced")
    @GroupThreads(1)
    public void produce(Paced rig, Producer p, Control control) {
        BenchEntry e = p.next(rig, control);
        if (e == null) {
            return;
        }
        e.setWaitSeq(e.order);
        e.enqueuedAtNanos = System.nanoTime();
        rig.enqueue(e);
        Blackhole.consumeCPU(rig.paceTokens);
    }

    /** One drain pass; spins when it found nothing. */
    @Benchmark
    @Group("paced")
    @GroupThreads(1)
    public int consume(Paced rig, Drained d) {
        int n = rig.queue.drain();
        d.drained += n;
        if (n == 0) {
            Thread.onSpinWait();
        }
        return n;
    }
}
