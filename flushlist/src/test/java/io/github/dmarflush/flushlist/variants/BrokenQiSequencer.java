package io.github.dmarflush.flushlist.variants;

import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.concurrent.locks.Lock;

/**
 * {@link QiSequencer}'s protocol with one mistake switched in: {@link
 * Variant#M4_SIGNED_COMPARE}, {@link Variant#M5_WRAP_WITHOUT_WAIT}, {@link
 * Variant#M7_WAKE_WITHOUT_LOCK} or {@link Variant#F1_WRAP_KEEPS_SEQHW}; with {@link
 * Variant#NONE} it is the unbroken copy, the control for the others.
 *
 * <p>One difference from the library on every variant: waiters sleep on a {@link
 * SleepChannel} (msleep/wakeup semantics, no timeout) instead of a {@code Condition}, so
 * that waking without the lock (M7) can lose a wakeup as it does in a kernel. The same
 * locking rules as {@code QiSequencer}: the caller holds the unit lock for everything but
 * {@link #processed}, {@link #statusWrite} and {@link #wakeupWaiters}.
 */
public final class BrokenQiSequencer implements WaitProtocol {

    private final Variant variant;
    private final Lock unitLock;
    private final InvalidationQueue queue;
    private final SleepChannel channel = new SleepChannel();

    private int nextSeq;
    private volatile int gen;
    private volatile int seqHw;
    private volatile int waiters;

    /**
     * @param variant {@link Variant#NONE} or a {@link Variant.Component#SEQUENCER} variant
     * @param unitLock the unit lock
     * @param queue the invalidation queue
     * @param gen the first generation
     * @param seq the first sequence number (the status word starts at {@code seq - 1})
     */
    public BrokenQiSequencer(Variant variant, Lock unitLock, InvalidationQueue queue, int gen, int seq) {
        if (variant != Variant.NONE && variant.component() != Variant.Component.SEQUENCER) {
            throw new IllegalArgumentException(variant + " does not break the sequencer");
        }
        this.variant = variant;
        this.unitLock = unitLock;
        this.queue = queue;
        this.gen = gen;
        this.nextSeq = seq;
        this.seqHw = seq - 1;
    }

    @Override
    public boolean processed(long gseq) {
        int g = gen;
        int cmp = Integer.compareUnsigned(GenSeq.gen(gseq), g);
        if (cmp != 0) {
            return cmp < 0;
        }
        int s = GenSeq.seq(gseq);
        int hw = seqHw;
        return variant == Variant.M4_SIGNED_COMPARE
                ? s <= hw // BROKEN (M4): 0x80000000 is "less" than 0x7FFFFFFF
                : Integer.compareUnsigned(s, hw) <= 0;
    }

    @Override
    public long emitWaitSeq(boolean emitWait) {
        if (nextSeq == GenSeq.SEQ_WRAP) {
            long last = GenSeq.of(gen, nextSeq);
            queue.ensure(1);
            queue.emitWaitDescriptor(nextSeq, false, true, false);
            queue.advanceTail();
            if (variant != Variant.M5_WRAP_WITHOUT_WAIT) {
                while (!processed(last)) {
                    Thread.onSpinWait();
                }
            } // BROKEN (M5): the old generation's last descriptors may still be pending
            if (variant != Variant.F1_WRAP_KEEPS_SEQHW) {
                seqHw = 0;
            } // BROKEN (F1): seqHw stays 0xFFFFFFFF, so (gen + 1, 1) is processed at once
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
    public void registerWaiter() {
        waiters = waiters + 1;
    }

    @Override
    public void waitForSeq(long gseq, boolean nowait) {
        try {
            while (!processed(gseq)) {
                if (nowait) {
                    Thread.onSpinWait();
                } else {
                    channel.msleep(unitLock);
                }
            }
        } finally {
            waiters = waiters - 1;
        }
    }

    @Override
    public void statusWrite(int seq) {
        seqHw = seq;
    }

    /** The QI task's last step: wake the waiters, under the unit lock except with M7. */
    public void wakeupWaiters() {
        if (waiters > 0) {
            if (variant == Variant.M7_WAKE_WITHOUT_LOCK) {
                channel.wakeup(); // BROKEN (M7): may fall between a waiter's check and its sleep
                return;
            }
            unitLock.lock();
            try {
                channel.wakeup();
            } finally {
                unitLock.unlock();
            }
        }
    }

    @Override
    public Runnable task(TlbFlushList<?> list, InvalidationCompletionStatus ics) {
        Runnable wakeup = new Runnable() { // not a lambda: see WaitProtocol.library
            @Override
            public void run() {
                wakeupWaiters();
            }
        };
        return new BrokenQiTask(variant, list, this, wakeup, ics);
    }
}
