package io.github.dmarflush.seeded;

import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.Objects;

/** {@link WaitSequencer} over the library's {@link QiSequencer}, unchanged. */
public final class LibrarySequencer implements WaitSequencer {

    private final QiSequencer qi;

    /** @param qi the library object */
    public LibrarySequencer(QiSequencer qi) {
        this.qi = Objects.requireNonNull(qi, "qi");
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
    public void registerWaiter() {
        qi.registerWaiter();
    }

    @Override
    public void waitForSeq(long gseq, boolean nowait) {
        qi.waitForSeq(gseq, nowait);
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
    public int nextSeq() {
        return qi.nextSeq();
    }

    @Override
    public int waiters() {
        return qi.waiters();
    }

    @Override
    public long generationWraps() {
        return qi.generationWraps();
    }

    @Override
    public long sleeps() {
        return qi.sleeps();
    }

    @Override
    public long sleepTimeouts() {
        return qi.sleepTimeouts();
    }
}
