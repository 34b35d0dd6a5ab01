package io.github.dmarflush.stress.support;

import io.github.dmarflush.seeded.TimeoutRecorder;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The DMAR unit lock ({@code dmarhw}) with an instrumented condition: it counts the
 * timed waits that ended because their timeout ran out rather than because they were
 * signalled. {@code QiSequencer} sleeps on {@code unitLock.newCondition()}, so this is how
 * a test tells a waiter woken by the QI task from one released only by its one-tick
 * timeout, without touching the library. It is still a {@link ReentrantLock}, so the
 * library's "lock held" checks stay on.
 *
 * <p>Each timed-out wait is put in one of two counts by asking, at the moment the timeout
 * returns, whether the waker has finished ({@link #wakerDoneWhen}): if it has, its wakeup
 * came and went without ending this sleep, which is a lost wakeup; if it has not, the
 * waker was simply slower than the timeout (a starved thread on a loaded machine).
 */
public final class UnitLock extends ReentrantLock implements TimeoutRecorder {

    private static final long serialVersionUID = 1L;

    private final AtomicLong timedOutAfterWaker = new AtomicLong();
    private final AtomicLong timedOutBeforeWaker = new AtomicLong();
    private volatile BooleanSupplier wakerDone = () -> false;

    @Override
    public Condition newCondition() {
        return new CountingCondition(super.newCondition());
    }

    /**
     * Tells the lock how to know that the waker (the QI task pass) has finished.
     *
     * @param done true once the waker has returned from its wakeup
     */
    public void wakerDoneWhen(BooleanSupplier done) {
        this.wakerDone = done;
    }

    /**
     * Records a sleep that ended because its timeout ran out. Called by this lock's
     * conditions, and by the msleep-style sleep channel of seeded bug M7 that does not use
     * them.
     */
    @Override
    public void recordTimedOutWait() {
        if (wakerDone.getAsBoolean()) {
            timedOutAfterWaker.incrementAndGet();
        } else {
            timedOutBeforeWaker.incrementAndGet();
        }
    }

    /**
     * Timed waits that ran out after the waker had finished: its wakeup did not end them.
     *
     * @return the count of lost wakeups
     */
    public long timedOutAfterWaker() {
        return timedOutAfterWaker.get();
    }

    /**
     * Timed waits that ran out before the waker had finished: the waker was slower than
     * the timeout.
     *
     * @return the count
     */
    public long timedOutBeforeWaker() {
        return timedOutBeforeWaker.get();
    }

    /** @return all timed waits that ran out */
    public long timedOutWaits() {
        return timedOutAfterWaker.get() + timedOutBeforeWaker.get();
    }

    /**
     * Counts a timed wait as "ended by its timeout" when the wait returned with no time left
     * and no signal was sent on this condition while it waited. The second half matters: a
     * waiter that is signalled but then gets the lock back only after its deadline (a
     * starved thread) also sees no time left, yet it was woken. Signals are counted under
     * the lock, and the waiter reads the count under the lock before and after its wait.
     */
    private final class CountingCondition implements Condition {
        private final Condition delegate;
        /** Signals sent on this condition. Guarded by the lock. */
        private long signals;

        CountingCondition(Condition delegate) {
            this.delegate = delegate;
        }

        @Override
        public long awaitNanos(long nanosTimeout) throws InterruptedException {
            long before = signals;
            long left = delegate.awaitNanos(nanosTimeout);
            if (left <= 0 && signals == before) {
                recordTimedOutWait();
            }
            return left;
        }

        @Override
        public boolean await(long time, TimeUnit unit) throws InterruptedException {
            long before = signals;
            boolean inTime = delegate.await(time, unit);
            if (!inTime && signals == before) {
                recordTimedOutWait();
            }
            return inTime;
        }

        @Override
        public boolean awaitUntil(Date deadline) throws InterruptedException {
            long before = signals;
            boolean inTime = delegate.awaitUntil(deadline);
            if (!inTime && signals == before) {
                recordTimedOutWait();
            }
            return inTime;
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
            signals++;
            delegate.signal();
        }

        @Override
        public void signalAll() {
            signals++;
            delegate.signalAll();
        }
    }
}
