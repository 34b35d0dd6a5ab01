package io.github.dmarflush.flushlist;

/**
 * Thrown by {@link ZombieHeadFlushList#drain} when a second consumer enters while one is
 * draining, or when a reclaim callback calls {@code drain} on the list it was called from.
 * The zombie-head list has exactly one consumer (the QI task); the list is left unchanged
 * by the rejected call. Calls that do not overlap may come from different threads. FreeBSD
 * has no such check: there the unit's single task thread is the only consumer by
 * construction.
 */
public final class ConcurrentDrainException extends IllegalStateException {

    ConcurrentDrainException(Thread current, Thread draining) {
        super(current == draining
                ? "drain() re-entered by thread '" + current.getName()
                        + "' from a reclaim callback; the flush list has exactly one consumer"
                : "drain() entered by thread '" + current.getName() + "' while thread '"
                        + draining.getName() + "' is draining; the flush list has exactly one consumer");
    }
}
