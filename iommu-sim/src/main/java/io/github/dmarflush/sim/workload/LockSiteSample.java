package io.github.dmarflush.sim.workload;

/**
 * Contention at one (lock, call site) over a measured window.
 *
 * @param lock the lock's name ({@code dmarhw}, {@code iodom})
 * @param caller the call site (a FreeBSD function name)
 * @param acquisitions all acquisitions
 * @param spinEvents acquisitions that spun
 * @param spinNanos time spent spinning, ns
 * @param blockEvents acquisitions that blocked
 * @param blockNanos time spent blocked, ns
 */
public record LockSiteSample(String lock, String caller, long acquisitions, long spinEvents, long spinNanos,
        long blockEvents, long blockNanos) {
}
