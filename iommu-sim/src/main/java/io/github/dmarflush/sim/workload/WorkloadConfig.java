package io.github.dmarflush.sim.workload;

import java.time.Duration;
import java.util.Objects;

/**
 * Parameters of a workload run.
 *
 * @param threads CPU threads doing map, DMA, unmap; at least 1
 * @param warmup time run before measuring (JIT warm-up), not reported
 * @param duration the measured window
 * @param packetSize bytes per packet (TCP_MAERTS, TCP_STREAM), 1..65536
 * @param seed seeds the payloads and buffer order, so a run's inputs are reproducible
 * @param requestSize bytes per request (dd), a positive multiple of 4 KiB
 * @param segmentSize largest busdma segment (dd's tag {@code maxsegsz}), a positive multiple of 4 KiB
 * @param txBatch transmitted packets unloaded together by one completion pass (TCP_STREAM)
 */
public record WorkloadConfig(int threads, Duration warmup, Duration duration, int packetSize, long seed,
        long requestSize, long segmentSize, int txBatch) {

    /** The largest packet (a 64 KiB LRO/TSO segment). */
    public static final int MAX_PACKET = 65536;
    /** dd's default request: 2 MiB. */
    public static final long DEFAULT_REQUEST = 2L << 20;
    /** dd's default segment: 128 KiB. */
    public static final long DEFAULT_SEGMENT = 128L << 10;
    /** TCP_STREAM's default completion batch. */
    public static final int DEFAULT_TX_BATCH = 32;

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
        if (requestSize < 4096 || (requestSize & 4095) != 0 || requestSize > (64L << 20)) {
            throw new IllegalArgumentException("request size must be a multiple of 4 KiB, 4 KiB..64 MiB, got "
                    + requestSize);
        }
        if (segmentSize < 4096 || (segmentSize & 4095) != 0) {
            throw new IllegalArgumentException("segment size must be a positive multiple of 4 KiB, got "
                    + segmentSize);
        }
        if (txBatch < 1) {
            throw new IllegalArgumentException("tx batch must be >= 1, got " + txBatch);
        }
    }

    /**
     * The network workloads' parameters, with dd's and the transmit batch at their defaults.
     *
     * @param threads CPU threads
     * @param warmup warm-up
     * @param duration measured window
     * @param packetSize bytes per packet
     * @param seed seed
     */
    public WorkloadConfig(int threads, Duration warmup, Duration duration, int packetSize, long seed) {
        this(threads, warmup, duration, packetSize, seed, DEFAULT_REQUEST, DEFAULT_SEGMENT, DEFAULT_TX_BATCH);
    }
}
