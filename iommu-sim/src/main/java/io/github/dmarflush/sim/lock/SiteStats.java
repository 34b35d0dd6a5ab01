package io.github.dmarflush.sim.lock;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Contention events of one lock at one call site: what lockstat records per
 * (lock, caller) pair. Adaptive-mutex <em>spin</em> events are acquisitions that had to
 * spin; <em>block</em> events are acquisitions that gave up spinning and slept. An
 * acquisition that spun and then blocked counts once in each, as lockstat's
 * {@code adaptive-spin} and {@code adaptive-block} probes both fire for it.
 *
 * <p>Each event's wait (ns spinning, or ns blocked) also goes into an HdrHistogram per kind,
 * the distribution lockstat prints with {@code -h}.
 *
 * <p>Thread-safe; increments are {@link LongAdder}s and the histograms are
 * {@link ConcurrentHistogram}s, so recording adds little contention of its own.
 */
public final class SiteStats {

    private final String lockName;
    private final String caller;
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder spinEvents = new LongAdder();
    private final LongAdder spinNanos = new LongAdder();
    private final LongAdder blockEvents = new LongAdder();
    private final LongAdder blockNanos = new LongAdder();
    private final ConcurrentHistogram spinHistogram = new ConcurrentHistogram(2);
    private final ConcurrentHistogram blockHistogram = new ConcurrentHistogram(2);

    /**
     * @param lockName the lock's name
     * @param caller the call site
     */
    public SiteStats(String lockName, String caller) {
        this.lockName = lockName;
        this.caller = caller;
    }

    /** Records an acquisition, contended or not. For mutex implementations. */
    public void acquired() {
        acquisitions.increment();
    }

    /**
     * Records a spin event. For mutex implementations.
     *
     * @param nanos time spent spinning, ns
     */
    public void spun(long nanos) {
        spinEvents.increment();
        spinNanos.add(nanos);
        spinHistogram.recordValue(Math.max(0, nanos));
    }

    /**
     * Records a block event. For mutex implementations.
     *
     * @param nanos time spent blocked, ns
     */
    public void blocked(long nanos) {
        blockEvents.increment();
        blockNanos.add(nanos);
        blockHistogram.recordValue(Math.max(0, nanos));
    }

    /** Zeroes the statistics. */
    public void reset() {
        acquisitions.reset();
        spinEvents.reset();
        spinNanos.reset();
        blockEvents.reset();
        blockNanos.reset();
        spinHistogram.reset();
        blockHistogram.reset();
    }

    /** @return the lock's name, e.g. {@code dmarhw} */
    public String lockName() {
        return lockName;
    }

    /** @return the call site, a FreeBSD function name such as {@code dmar_qi_task} */
    public String caller() {
        return caller;
    }

    /** @return all acquisitions at this site, contended or not */
    public long acquisitions() {
        return acquisitions.sum();
    }

    /** @return acquisitions that spun */
    public long spinEvents() {
        return spinEvents.sum();
    }

    /** @return total time spent spinning, ns */
    public long spinNanos() {
        return spinNanos.sum();
    }

    /** @return acquisitions that blocked */
    public long blockEvents() {
        return blockEvents.sum();
    }

    /** @return total time spent blocked, ns */
    public long blockNanos() {
        return blockNanos.sum();
    }

    /** @return a copy of the distribution of spin times, ns */
    public Histogram spinHistogram() {
        return spinHistogram.copy();
    }

    /** @return a copy of the distribution of block times, ns */
    public Histogram blockHistogram() {
        return blockHistogram.copy();
    }
}
