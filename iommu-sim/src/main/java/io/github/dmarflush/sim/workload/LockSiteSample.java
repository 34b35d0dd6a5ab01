package io.github.dmarflush.sim.workload;

import org.HdrHistogram.Histogram;

/**
 * Contention at one (lock, call site) over a measured window, summed over every instance of
 * the lock (all units' {@code dmarhw}, all domains' {@code iodom}).
 *
 * @param lock the lock's name ({@code dmarhw}, {@code iodom})
 * @param caller the call site (a FreeBSD function name)
 * @param acquisitions all acquisitions
 * @param spinEvents acquisitions that spun
 * @param spinNanos time spent spinning, ns
 * @param blockEvents acquisitions that blocked
 * @param blockNanos time spent blocked, ns
 * @param spinHistogram distribution of spin times, ns
 * @param blockHistogram distribution of block times, ns
 */
public record LockSiteSample(String lock, String caller, long acquisitions, long spinEvents, long spinNanos,
        long blockEvents, long blockNanos, Histogram spinHistogram, Histogram blockHistogram) {

    /**
     * @param other another sample of the same lock and caller
     * @return the sum of both
     */
    public LockSiteSample plus(LockSiteSample other) {
        Histogram s = spinHistogram.copy();
        s.add(other.spinHistogram);
        Histogram b = blockHistogram.copy();
        b.add(other.blockHistogram);
        return new LockSiteSample(lock, caller, acquisitions + other.acquisitions, spinEvents + other.spinEvents,
                spinNanos + other.spinNanos, blockEvents + other.blockEvents, blockNanos + other.blockNanos, s, b);
    }
}
