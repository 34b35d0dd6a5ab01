package io.github.dmarflush.sim.lock;

import java.util.concurrent.atomic.LongAdder;

/**
 * Contention events of one lock at one call site: what lockstat records per
 * (lock, caller) pair. Adaptive-mutex <em>spin</em> events are acquisitions that had to
 * spin; <em>block</em> events are acquisitions that gave up spinning and slept. An
 * acquisition that spun and then blocked counts once in each, as lockstat's
 * {@code adaptive-spin} and {@code adaptive-block} probes both fire for it.
 *
 * <p>Thread-safe; increments are {@link LongAdder}s so recording adds little contention
 * of its own.
 */
public final class SiteStats {

    private final String lockName;
    private final String caller;
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder spinEvents = new LongAdder();
    private final LongAdder spinNanos = new LongAdder();
    private final LongAdder blockEvents = new LongAdder();
    private final LongAdder blockNanos = new LongAdder();

    SiteStats(String lockName, String caller) {
        this.lockName = lockName;
        this.caller = caller;
    }

    void acquired() {
        acquisitions.increment();
    }

    void spun(long nanos) {
        spinEvents.increment();
        spinNanos.add(nanos);
    }

    void blocked(long nanos) {
        blockEvents.increment();
        blockNanos.add(nanos);
    }

    void reset() {
        acquisitions.reset();
        spinEvents.reset();
        spinNanos.reset();
        blockEvents.reset();
        blockNanos.reset();
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
}
