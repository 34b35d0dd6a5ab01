package io.github.dmarflush.flushlist.variants;

import java.util.concurrent.locks.Lock;

/**
 * FreeBSD's {@code msleep(chan, &lock, ...)} / {@code wakeup(chan)} on one channel, without
 * a timeout: {@link #msleep} puts the caller on the sleep queue <em>before</em> it drops
 * the interlock, and {@link #wakeup} wakes only threads already on the queue; a wakeup
 * that finds nobody is forgotten. So a waker that holds the interlock cannot fall between
 * a sleeper's check and its sleep, and a waker that does not hold it can. Java's {@code
 * Condition} cannot show that mistake ({@code signalAll} without the lock throws), hence
 * this primitive for {@link Variant#M7_WAKE_WITHOUT_LOCK}.
 */
final class SleepChannel {

    private final Object sleepQueue = new Object();
    /** Wakeups so far; guarded by {@link #sleepQueue}. A sleeper waits for it to move. */
    private long wakeups;

    /**
     * Sleeps until the next {@link #wakeup}. The caller holds {@code interlock}; it is
     * released while asleep and held again on return. Interrupts do not end the sleep.
     *
     * @param interlock the lock the caller holds
     */
    void msleep(Lock interlock) {
        long seen;
        synchronized (sleepQueue) {
            seen = wakeups; // on the sleep queue from here on
        }
        interlock.unlock();
        boolean interrupted = false;
        synchronized (sleepQueue) {
            while (wakeups == seen) {
                try {
                    sleepQueue.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        interlock.lock();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Wakes every thread on the sleep queue; none is remembered for later sleepers. */
    void wakeup() {
        synchronized (sleepQueue) {
            wakeups++;
            sleepQueue.notifyAll();
        }
    }
}
