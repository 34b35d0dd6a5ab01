package io.github.dmarflush.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Workload 3: allocation per operation. One thread does, per operation, what a producer
 * and the consumer do for one entry: take it from the pool, enqueue it (under the unit lock
 * if the candidate needs it), drain it, return it to the pool. Run with JMH's GC profiler
 * ({@code -prof gc}); its {@code gc.alloc.rate.norm} is the bytes allocated per
 * enqueue + drain. The flush lists link entries intrusively and should show 0; the linked
 * peers allocate a node per offer by design.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 2, time = 1)
@Fork(1)
public class AllocationBenchmark {

    /** The queue, the pool and this thread's producer side. */
    @State(Scope.Thread)
    public static class Single extends Rig {
        /** The queue under test. */
        @Param
        public Candidate candidate;

        final Rig.ProducerSide side = new Rig.ProducerSide();

        /** Builds the queue and the pool. */
        @Setup(Level.Trial)
        public void setUp() {
            setUp(candidate, 1, new ConsumerWork.None(1));
        }
    }

    /** One enqueue and one drain of that entry. */
    @Benchmark
    public int enqueueDrain(Single s, Control control) {
        BenchEntry e = s.side.next(s, control);
        if (e == null) {
            throw new IllegalStateException("pool empty although every entry is drained at once");
        }
        e.setWaitSeq(e.order);
        s.enqueue(e);
        return s.queue.drain();
    }
}
