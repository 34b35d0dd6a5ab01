package io.github.dmarflush.stress.variants;

import java.util.ArrayList;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * A wait channel with FreeBSD's {@code msleep}/{@code wakeup} semantics: {@link #wakeup}
 * wakes only the threads that are on the channel at that moment; nothing is remembered for
 * a thread that arrives later. {@link #sleep} puts the caller on the channel before it
 * releases the interlock, so a waker that holds the interlock cannot miss a sleeper that
 * tested its condition under it. A waker that does not hold the interlock can: the
 * sleeper may have tested its condition and not yet be on the channel (variant M7).
 */
final class SleepQueue {

    private static final class Sleeper {
        final Thread thread = Thread.currentThread();
        volatile boolean woken;
    }

    private final ArrayList<Sleeper> sleepers = new ArrayList<>();

    /**
     * Sleeps on the channel, releasing {@code interlock} (held by the caller) while asleep
     * and taking it again before returning.
     *
     * @param interlock the lock the caller holds
     * @param timeoutNanos the longest sleep, more than 0
     * @return true if woken by {@link #wakeup}, false if the timeout ended the sleep
     */
    boolean sleep(Lock interlock, long timeoutNanos) {
        Sleeper me = new Sleeper();
        synchronized (sleepers) {
            sleepers.add(me);
        }
        interlock.unlock();
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            while (!me.woken) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            synchronized (sleepers) {
                sleepers.remove(me);
            }
            interlock.lock();
        }
        return me.woken;
    }

    /** Wakes every thread on the channel now. */
    void wakeup() {
        synchronized (sleepers) {
            for (Sleeper s : sleepers) {
                s.woken = true;
                LockSupport.unpark(s.thread);
            }
            sleepers.clear();
        }
    }
}
