package io.github.dmarflush.stress.variants;

import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.stress.support.Sequencer;
import io.github.dmarflush.stress.support.UnitLock;
import io.github.dmarflush.stress.support.Variant;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.Condition;

/**
 * A copy of {@code QiSequencer}'s protocol with one seeded bug, for showing that the
 * stress tests catch it. Not for use. Same fields and orderings as the library unless the
 * variant says otherwise:
 *
 * <ul>
 *   <li>{@link Variant#M4}: {@code processed} compares gen and seq as signed ints.</li>
 *   <li>{@link Variant#M5}: the wrap emits the {@code 0xFFFFFFFF} descriptor and advances
 *       the tail but does not wait for it before bumping gen.</li>
 *   <li>{@link Variant#FREEBSD_WRAP}: the wrap waits, but leaves {@code seqHw} at
 *       {@code 0xFFFFFFFF} when it bumps gen (FreeBSD's {@code iommu_qi_emit_wait_seq}).</li>
 *   <li>{@link Variant#M6}: {@link #quiesce} advances the tail before it registers the
 *       waiter, and {@code waiters} is a plain field, as {@code inv_seq_waiters} is in C.
 *       (With a volatile counter the order would not matter in Java: the waiter's volatile
 *       store and its volatile load of {@code seqHw} could not be reordered.)</li>
 *   <li>{@link Variant#M7}: waiters sleep on an msleep/wakeup-style {@link SleepQueue}
 *       and {@link #wakeupWaiters} does not take the unit lock.</li>
 *   <li>{@link Variant#SLEEPQ}: the same sleep queue, woken under the unit lock: the
 *       control that shows M7's failures come from the missing lock.</li>
 * </ul>
 */
public final class VariantSequencer implements Sequencer {

    private final Variant bug;
    private final UnitLock unitLock;
    private final Condition condition;
    private final SleepQueue sleepQueue;
    private final InvalidationQueue queue;
    private final long sleepTimeoutNanos;

    private int nextSeq;
    private volatile int gen;
    private volatile int seqHw;
    @SuppressWarnings("unused") // through WAITERS, volatile or plain as the variant says
    private int waiters;
    private volatile long sleeps;
    private volatile long sleepsEndedByTimeout;

    private static final VarHandle WAITERS;

    static {
        try {
            WAITERS = MethodHandles.lookup().findVarHandle(VariantSequencer.class, "waiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param bug which bug to seed
     * @param unitLock the unit lock
     * @param queue the invalidation queue
     * @param gen first generation
     * @param seq first sequence number (not 0); {@code seqHw} starts at {@code seq - 1}
     * @param sleepTimeoutNanos the sleep timeout, more than 0
     */
    public VariantSequencer(Variant bug, UnitLock unitLock, InvalidationQueue queue, int gen, int seq,
            long sleepTimeoutNanos) {
        this.bug = bug;
        this.unitLock = unitLock;
        this.queue = queue;
        this.sleepTimeoutNanos = sleepTimeoutNanos;
        boolean sleepQueue = bug == Variant.M7 || bug == Variant.SLEEPQ;
        this.condition = sleepQueue ? null : unitLock.newCondition();
        this.sleepQueue = sleepQueue ? new SleepQueue() : null;
        this.nextSeq = seq;
        this.gen = gen;
        this.seqHw = seq - 1;
    }

    private int waiters() {
        return bug == Variant.M6 ? (int) WAITERS.get(this) : (int) WAITERS.getVolatile(this);
    }

    private void addWaiters(int delta) {
        if (bug == Variant.M6) {
            WAITERS.set(this, (int) WAITERS.get(this) + delta);
        } else {
            WAITERS.setVolatile(this, (int) WAITERS.get(this) + delta);
        }
    }

    @Override
    public boolean processed(long gseq) {
        int g = gen;
        int eg = GenSeq.gen(gseq);
        int es = GenSeq.seq(gseq);
        if (bug == Variant.M4) {
            return eg < g || (eg == g && es <= seqHw); // BUG M4: signed comparisons
        }
        int cmp = Integer.compareUnsigned(eg, g);
        return cmp < 0 || (cmp == 0 && Integer.compareUnsigned(es, seqHw) <= 0);
    }

    @Override
    public long emitWaitSeq(boolean emitWait) {
        if (nextSeq == GenSeq.SEQ_WRAP) {
            long last = GenSeq.of(gen, nextSeq);
            queue.ensure(1);
            queue.emitWaitDescriptor(nextSeq, false, true, false);
            queue.advanceTail();
            if (bug != Variant.M5) { // BUG M5: no wait for the old generation's last descriptor
                while (!processed(last)) {
                    Thread.onSpinWait();
                }
            }
            if (bug != Variant.FREEBSD_WRAP) { // FREEBSD_WRAP: seqHw stays 0xFFFFFFFF
                seqHw = 0;
            }
            gen = gen + 1;
            nextSeq = 1;
        }
        int seq = nextSeq++;
        long gseq = GenSeq.of(gen, seq);
        if (emitWait) {
            queue.ensure(1);
            queue.emitWaitDescriptor(seq, true, true, false);
        }
        return gseq;
    }

    @Override
    public long quiesce(boolean nowait) {
        long gseq = emitWaitSeq(true);
        if (bug == Variant.M6) {
            queue.advanceTail(); // BUG M6: the hardware may complete before we are counted
            addWaiters(1);
        } else {
            addWaiters(1);
            queue.advanceTail();
        }
        waitForSeq(gseq, nowait);
        return gseq;
    }

    private void waitForSeq(long gseq, boolean nowait) {
        try {
            while (!processed(gseq)) {
                if (nowait) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeps++;
                boolean woken;
                if (sleepQueue != null) {
                    woken = sleepQueue.sleep(unitLock, sleepTimeoutNanos);
                } else {
                    try {
                        woken = condition.awaitNanos(sleepTimeoutNanos) > 0;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        woken = true;
                    }
                }
                if (!woken) {
                    sleepsEndedByTimeout++;
                    if (sleepQueue != null) {
                        unitLock.recordTimedOutWait(); // the unit lock's condition records its own
                    }
                }
            }
        } finally {
            addWaiters(-1);
        }
    }

    @Override
    public void wakeupWaiters() {
        if (waiters() > 0) {
            if (bug == Variant.M7) {
                sleepQueue.wakeup(); // BUG M7: no unit lock, a sleeper between its test and its sleep is missed
                return;
            }
            unitLock.lock();
            try {
                if (sleepQueue != null) {
                    sleepQueue.wakeup();
                } else {
                    condition.signalAll();
                }
            } finally {
                unitLock.unlock();
            }
        }
    }

    @Override
    public void statusWrite(int seq) {
        seqHw = seq;
    }

    @Override
    public int seqHw() {
        return seqHw;
    }

    @Override
    public int gen() {
        return gen;
    }

    @Override
    public long sleeps() {
        return sleeps;
    }

    @Override
    public long sleepsEndedByTimeout() {
        return sleepsEndedByTimeout;
    }
}
