package io.github.dmarflush.sim.driver;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts invalidation requests (one per map entry or global invalidation handed to the
 * queue) per {@link CallStack}. Thread-safe; counting is a map lookup and a
 * {@link LongAdder} increment.
 */
public final class InvalidationStacks {

    /**
     * One row of the aggregation.
     *
     * @param stack the call stack
     * @param count requests made from it
     */
    public record Row(CallStack stack, long count) {
    }

    private final Map<CallStack, LongAdder> counts = new ConcurrentHashMap<>();

    /**
     * @param stack where the request came from
     */
    public void count(CallStack stack) {
        counts.computeIfAbsent(stack, s -> new LongAdder()).increment();
    }

    /** Zeroes every count (at the start of a measured window). */
    public void reset() {
        counts.values().forEach(LongAdder::reset);
    }

    /** @return the rows with a count above 0, largest first */
    public List<Row> snapshot() {
        return counts.entrySet().stream()
                .map(e -> new Row(e.getKey(), e.getValue().sum()))
                .filter(r -> r.count() > 0)
                .sorted(Comparator.comparingLong(Row::count).reversed().thenComparing(r -> r.stack().toString()))
                .toList();
    }
}
