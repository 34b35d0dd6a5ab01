package io.github.dmarflush.sim.hw;

/**
 * How long the simulated invalidation engine takes per descriptor, by type, plus a uniformly
 * distributed jitter drawn from a seeded generator on the engine thread, so a run's timing
 * noise is reproducible in distribution. The engine busy-waits for the time (it models a
 * device, not a CPU that could do something else), so on a small machine keep these short:
 * the default is 0 for every type.
 *
 * @param iotlbNanos IOTLB invalidation descriptors, ns
 * @param contextNanos context-cache invalidation descriptors, ns
 * @param iecNanos interrupt-entry-cache invalidation descriptors, ns
 * @param waitNanos wait descriptors, ns
 * @param jitterNanos up to this much more per descriptor, uniform, ns
 * @param seed seeds the jitter
 */
public record EngineTiming(long iotlbNanos, long contextNanos, long iecNanos, long waitNanos, long jitterNanos,
        long seed) {

    /** No latency and no jitter. */
    public static final EngineTiming NONE = new EngineTiming(0, 0, 0, 0, 0, 0);

    /**
     * The longest latency or jitter the model accepts, ns: one second. Real units take
     * microseconds per descriptor; beyond a second a run would only look hung.
     */
    public static final long MAX_NANOS = 1_000_000_000L;

    /**
     * @throws IllegalArgumentException if a time is negative or above {@link #MAX_NANOS}
     */
    public EngineTiming {
        if (iotlbNanos < 0 || contextNanos < 0 || iecNanos < 0 || waitNanos < 0 || jitterNanos < 0) {
            throw new IllegalArgumentException("descriptor latencies and jitter must be >= 0 ns");
        }
        if (iotlbNanos > MAX_NANOS || contextNanos > MAX_NANOS || iecNanos > MAX_NANOS || waitNanos > MAX_NANOS
                || jitterNanos > MAX_NANOS) {
            throw new IllegalArgumentException("descriptor latencies and jitter must be at most " + MAX_NANOS
                    + " ns (1 s), got " + describe(iotlbNanos, contextNanos, iecNanos, waitNanos, jitterNanos));
        }
    }

    /**
     * @param nanos latency of every descriptor type, ns
     * @return the timing
     */
    public static EngineTiming uniform(long nanos) {
        return new EngineTiming(nanos, nanos, nanos, nanos, 0, 0);
    }

    /**
     * @param lo a descriptor's low word
     * @return the base latency of its type, ns
     */
    public long latencyOf(long lo) {
        return switch (Descriptors.type(lo)) {
            case (int) Descriptors.IOTLB_INV -> iotlbNanos;
            case (int) Descriptors.CTX_INV -> contextNanos;
            case (int) Descriptors.IEC_INV -> iecNanos;
            case (int) Descriptors.WAIT -> waitNanos;
            default -> 0;
        };
    }

    /** @return whether any descriptor costs time */
    public boolean isZero() {
        return iotlbNanos == 0 && contextNanos == 0 && iecNanos == 0 && waitNanos == 0 && jitterNanos == 0;
    }

    @Override
    public String toString() {
        return describe(iotlbNanos, contextNanos, iecNanos, waitNanos, jitterNanos);
    }

    private static String describe(long iotlb, long ctx, long iec, long wait, long jitter) {
        return String.format("iotlb=%dns ctx=%dns iec=%dns wait=%dns jitter=%dns", iotlb, ctx, iec, wait, jitter);
    }
}
