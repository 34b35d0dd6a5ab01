package io.github.dmarflush.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The consumer's count of entries dequeued and processed, reported by JMH as the secondary
 * metric {@code drained} (a rate, entries/s): the throughput of a group benchmark, the
 * entries that went all the way through the queue. The producers' own rate ({@code produce})
 * agrees with it to within the backlog bound.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class Drained {

    /** Entries drained in this iteration. */
    public long drained;

    /** JMH does not reset auxiliary counters itself. */
    @Setup(Level.Iteration)
    public void reset() {
        drained = 0;
    }
}
