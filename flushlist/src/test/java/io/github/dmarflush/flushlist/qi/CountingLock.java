package io.github.dmarflush.flushlist.qi;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A unit lock that counts its {@code lock()} calls and the {@code signalAll()} calls on its
 * conditions, so a test can see whether the QI task took the lock and when a wakeup went
 * out. Otherwise a plain {@link ReentrantLock}.
 */
final class CountingLock extends ReentrantLock {

    final AtomicInteger lockCalls = new AtomicInteger();
    final AtomicInteger signals = new AtomicInteger();
    /**
     * Whether the conditions report a timed wait that ran out as exactly 0 remaining, which
     * {@link Condition#awaitNanos} allows ("a value less than or equal to zero indicates
     * that no time remains"); {@code ReentrantLock}'s own conditions return a negative
     * number almost always.
     */
    volatile boolean zeroWhenTimedOut;

    @Override
    public void lock() {
        lockCalls.incrementAndGet();
        super.lock();
    }

    @Override
    public Condition newCondition() {
        Condition c = super.newCondition();
        return new Condition() {
            @Override
            public void await() throws InterruptedException {
                c.await();
            }

            @Override
            public void awaitUninterruptibly() {
                c.awaitUninterruptibly();
            }

            @Override
            public long awaitNanos(long nanosTimeout) throws InterruptedException {
                long remaining = c.awaitNanos(nanosTimeout);
                return zeroWhenTimedOut && remaining <= 0 ? 0 : remaining;
            }

            @Override
            public boolean await(long time, TimeUnit unit) throws InterruptedException {
                return c.await(time, unit);
            }

            @Override
            public boolean awaitUntil(Date deadline) throws InterruptedException {
                return c.awaitUntil(deadline);
            }

            @Override
            public void signal() {
                signals.incrementAndGet();
                c.signal();
            }

            @Override
            public void signalAll() {
                signals.incrementAndGet();
                c.signalAll();
            }
        };
    }
}
