package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.concurrent.TimeUnit;

/** {@link Sequencer} over the library's {@link QiSequencer}, unchanged. */
public final class LibrarySequencer implements Sequencer {

    private final QiSequencer qi;
    private final UnitLock unitLock;

    /**
     * @param unitLock the unit lock; its condition counts timed-out sleeps
     * @param queue the unit's invalidation queue
     * @param gen the first generation
     * @param seq the first sequence number (not 0)
     * @param sleepTimeoutNanos the waiter's sleep timeout, one "tick"
     */
    public LibrarySequencer(UnitLock unitLock, InvalidationQueue queue, int gen, int seq,
            long sleepTimeoutNanos) {
        this.unitLock = unitLock;
        this.qi = QiSequencer.builder(unitLock, queue)
                .startAt(gen, seq)
                .sleepTimeout(sleepTimeoutNanos, TimeUnit.NANOSECONDS)
                .build();
    }

    /** @return the library object, for the library's {@code QiTask} */
    public QiSequencer qi() {
        return qi;
    }

    @Override
    public boolean processed(long gseq) {
        return qi.processed(gseq);
    }

    @Override
    public long emitWaitSeq(boolean emitWait) {
        return qi.emitWaitSeq(emitWait);
    }

    @Override
    public long quiesce(boolean nowait) {
        return qi.quiesce(nowait);
    }

    @Override
    public void wakeupWaiters() {
        qi.wakeupWaiters();
    }

    @Override
    public void statusWrite(int seq) {
        qi.statusWrite(seq);
    }

    @Override
    public int seqHw() {
        return qi.seqHw();
    }

    @Override
    public int gen() {
        return qi.gen();
    }

    @Override
    public long sleeps() {
        return qi.sleeps();
    }

    @Override
    public long sleepsEndedByTimeout() {
        return unitLock.timedOutWaits();
    }
}
