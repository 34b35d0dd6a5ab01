package io.github.dmarflush.sim.workload;

import java.time.Duration;
import java.util.Objects;

/**
 * Parameters of a workload run.
 *
 * @param threads CPU threads doing map, DMA, unmap; at least 1
 * @param warmup time run before measuring (JIT warm-up), not reported
 * @param duration the measured window
 * @param packetSize bytes per packet, 1..65536
 * @param seed seeds the payloads and buffer order, so a run's inputs are reproducible
 */
public record WorkloadConfig(int threads, Duration warmup, Duration duration, int packetSize, long seed) {

    /** The largest packet (a 64 KiB LRO/TSO segment). */
    public static final int MAX_PACKET = 65536;

    /**
     * @throws IllegalArgumentException if a value is out of range
     */
    public WorkloadConfig {
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(duration, "duration");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup must be >= 0, got " + warmup);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be > 0, got " + duration);
        }
        if (packetSize < 1 || packetSize > MAX_PACKET) {
            throw new IllegalArgumentException("packet size must be 1.." + MAX_PACKET + " bytes, got " + packetSize);
        }
    }
}
