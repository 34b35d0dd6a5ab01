package io.github.dmarflush.stress.support;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The DMAR unit lock ({@code dmarhw}) with an instrumented condition: it counts the
 * timed waits that ended because their timeout ran out rather than because they were
 * signalled. {@code QiSequencer} sleeps on {@code unitLock.newCondition()}, so this is how
 * a test tells a waiter woken by the QI task from one released only by its one-tick
 * timeout, without touching the library. It is still a {@link ReentrantLock}, so the
 * library's "lock held" checks stay on.
 */
public final class UnitLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    private final AtomicLong timedOutWaits = new AtomicLong();

    @Override
    public Condition newCondition() {
        return new CountingCondition(super.newCondition());
    }

    /**
     * Timed waits on this lock's conditions that returned with no time left: the sleeper
     * was not woken by a signal (a lost wakeup, when the waker should have come long
     * before the timeout).
     *
     * @return the count
     */
    public long timedOutWaits() {
        return timedOutWaits.get();
    }

    private final class CountingCondition implements Condition {
        private final Condition delegate;

        CountingCondition(Condition delegate) {
            this.delegate = delegate;
        }

        @Override
        public long awaitNanos(long nanosTimeout) throws InterruptedException {
            long left = delegate.awaitNanos(nanosTimeout);
            if (left <= 0) {
                timedOutWaits.incrementAndGet();
            }
            return left;
        }

        @Override
        public boolean await(long time, TimeUnit unit) throws InterruptedException {
            boolean signalled = delegate.await(time, unit);
            if (!signalled) {
                timedOutWaits.incrementAndGet();
            }
            return signalled;
        }

        @Override
        public boolean awaitUntil(Date deadline) throws InterruptedException {
            boolean signalled = delegate.awaitUntil(deadline);
            if (!signalled) {
                timedOutWaits.incrementAndGet();
            }
            return signalled;
        }

        @Override
        public void await() throws InterruptedException {
            delegate.await();
        }

        @Override
        public void awaitUninterruptibly() {
            delegate.awaitUninterruptibly();
        }

        @Override
        public void signal() {
            delegate.signal();
        }

        @Override
        public void signalAll() {
            delegate.signalAll();
        }
    }
}
