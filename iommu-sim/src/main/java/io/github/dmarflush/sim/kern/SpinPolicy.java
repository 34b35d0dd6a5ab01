package io.github.dmarflush.sim.kern;

/**
 * How a contended adaptive mutex spins, as FreeBSD's {@code lock_delay()}
 * ({@code sys/kern/subr_lock.c}): each round doubles the number of {@code cpu_spinwait()}
 * pauses, starting from {@code 2 * base}, up to {@code max}, and the lock word is read after
 * each round.
 *
 * @param pauseNanos time of one {@code cpu_spinwait()} (the x86 PAUSE instruction), ns, at least 1
 * @param base {@code lock_delay_config.base}, at least 1
 * @param max {@code lock_delay_config.max}, at least {@code base}
 */
public record SpinPolicy(long pauseNanos, int base, int max) {

    /**
     * @throws IllegalArgumentException if a value is out of range
     */
    public SpinPolicy {
        if (pauseNanos < 1) {
            throw new IllegalArgumentException("pause time must be >= 1 ns, got " + pauseNanos);
        }
        if (base < 1 || max < base) {
            throw new IllegalArgumentException("lock_delay base must be >= 1 and max >= base, got base " + base
                    + ", max " + max);
        }
    }

    /**
     * The first time at or after {@code at} at which a thread that started spinning at
     * {@code start} reads the lock word.
     *
     * @param start when the spin phase started, ns
     * @param at the earliest time of interest, ns, not before {@code start}
     * @return the time of that read, ns
     */
    public long nextLook(long start, long at) {
        long t = start;
        long delay = base;
        while (delay < max) {
            delay = Math.min(delay << 1, max);
            t += delay * pauseNanos;
            if (t >= at) {
                return t;
            }
        }
        long round = max * pauseNanos;
        long rounds = (at - t + round - 1) / round;
        return t + rounds * round;
    }
}
