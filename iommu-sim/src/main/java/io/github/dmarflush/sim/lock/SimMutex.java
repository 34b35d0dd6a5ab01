package io.github.dmarflush.sim.lock;

import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * A lock of the simulated driver ({@code dmarhw}, {@code iodom}) as the driver code sees it:
 * a {@link Lock} view per call site, and lockstat's statistics per site. Two clocks implement
 * it: {@link LockstatMutex} is a real lock for the real-thread clock; the virtual-time kernel's
 * {@code io.github.dmarflush.sim.kern.AdaptiveMutex} models FreeBSD's adaptive mutex in
 * simulated time, and its views only check that the simulated thread holds it.
 */
public interface SimMutex {

    /** @return the lock's name in reports, e.g. {@code dmarhw} */
    String name();

    /**
     * A {@link Lock} view whose contention is recorded under {@code caller}. Views for the
     * same caller share their statistics.
     *
     * @param caller the call site, a FreeBSD function name
     * @return the view
     */
    Lock site(String caller);

    /** @return the statistics of every call site created so far */
    List<SiteStats> sites();

    /** Zeroes every site's statistics (at the start of a measurement window). */
    void resetStats();
}
