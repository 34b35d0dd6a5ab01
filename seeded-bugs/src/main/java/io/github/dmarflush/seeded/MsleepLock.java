package io.github.dmarflush.seeded;

import java.util.Date;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A unit lock whose conditions have FreeBSD's {@code msleep(chan, &lock, ...)} /
 * {@code wakeup(chan)} semantics instead of {@code java.util.concurrent}'s: a sleeper gets on
 * the channel <em>before</em> it drops the interlock, and {@code signalAll} wakes only the
 * threads already on it; a wakeup that finds nobody is forgotten, and it may be called
 * without the lock. So a waker that holds the lock cannot fall between a sleeper's check and
 * its sleep, and one that does not hold it can. {@code Condition.signalAll} without the lock
 * throws instead, which is why seeded bug M7 needs this lock to show itself; the library's
 * {@code QiSequencer} over this lock is M7's control, and passes.
 *
 * <p>{@link #lock}, {@link #unlock} and the others go to the wrapped lock, which the harness
 * keeps using as its unit lock. A timed sleep that runs out with no wakeup sent during it is
 * reported to the wrapped lock if it is a {@link TimeoutRecorder}.
 */
public final class MsleepLock implements Lock {

    private final Lock delegate;
    private volatile Runnable beforeSleep;

    /** @param delegate the unit lock */
    public MsleepLock(Lock delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * For a deterministic test of the race: {@code r} runs in the sleeping thread, holding the
     * lock, after its check and before it gets on the channel, on every sleep.
     *
     * @param r the hook, or null for none
     */
    public void beforeSleep(Runnable r) {
        this.beforeSleep = r;
    }

    @Override
    public void lock() {
        delegate.lock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        delegate.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return delegate.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return delegate.tryLock(time, unit);
    }

    @Override
    public void unlock() {
        delegate.unlock();
    }

    @Override
    public Condition newCondition() {
        return new Channel();
    }

    /** One wait channel. Wakeups are counted under its monitor; a sleeper waits for the count to move. */
    private final class Channel implements Condition {
        /** Guarded by this. */
        private long wakeups;

        /** Gets on the channel: returns the wakeup count the sleeper waits to see move. */
        private long enqueue() {
            Runnable hook = beforeSleep;
            if (hook != null) {
                hook.run();
            }
            synchronized (this) {
                return wakeups;
            }
        }

        @Override
        public void awaitUninterruptibly() {
            long seen = enqueue();
            delegate.unlock();
            boolean interrupted = false;
            synchronized (this) {
                while (wakeups == seen) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            delegate.lock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void await() {
            awaitUninterruptibly();
        }

        @Override
        public long awaitNanos(long nanosTimeout) throws InterruptedException {
            long seen = enqueue();
            long deadline = System.nanoTime() + nanosTimeout;
            long left = nanosTimeout;
            boolean woken;
            delegate.unlock();
            try {
                synchronized (this) {
                    while (wakeups == seen && left > 0) {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                        left = deadline - System.nanoTime();
                    }
                    woken = wakeups != seen;
                }
            } finally {
                delegate.lock();
            }
            if (!woken) {
                if (delegate instanceof TimeoutRecorder r) {
                    r.recordTimedOutWait();
                }
                return Math.min(left, 0);
            }
            return Math.max(left, 1);
        }

        @Override
        public boolean await(long time, TimeUnit unit) throws InterruptedException {
            return awaitNanos(unit.toNanos(time)) > 0;
        }

        @Override
        public boolean awaitUntil(Date deadline) throws InterruptedException {
            return awaitNanos(TimeUnit.MILLISECONDS.toNanos(deadline.getTime() - System.currentTimeMillis())) > 0;
        }

        @Override
        public void signal() {
            signalAll();
        }

        /** {@code wakeup(chan)}: wakes every thread on the channel now; needs no lock. */
        @Override
        public void signalAll() {
            synchronized (this) {
                wakeups++;
                notifyAll();
            }
        }
    }
}
