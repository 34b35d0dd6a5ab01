package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;

/**
 * The (gen, seq) protocol as {@link QiProtocolModel} drives it: the {@link QiSequencer}
 * operations it calls, and the QI task over it, behind an interface so that the seeded-bugs
 * matrix can put a broken copy in the library's place ({@link ModelParts}). The methods are
 * {@code QiSequencer}'s, with its locking rules.
 */
public interface WaitProtocol extends SeqProcessed {

    /**
     * See {@link QiSequencer#emitWaitSeq}.
     *
     * @param emitWait whether to write a wait descriptor
     * @return the packed (gen, seq)
     */
    long emitWaitSeq(boolean emitWait);

    /**
     * See {@link QiSequencer#quiesce}: emit, register as a waiter, advance IQT, wait.
     *
     * @param nowait spin instead of sleeping
     * @return the packed (gen, seq) waited for
     */
    long quiesce(boolean nowait);

    /**
     * See {@link QiSequencer#statusWrite}.
     *
     * @param seq the status data (unsigned)
     */
    void statusWrite(int seq);

    /**
     * The QI task over this protocol.
     *
     * @param list the flush list
     * @param ics the completion status register
     * @return one pass of {@code dmar_qi_task}
     */
    Runnable task(TlbFlushList<?> list, InvalidationCompletionStatus ics);

    /**
     * The library's {@link QiSequencer} and {@link QiTask}.
     *
     * @param s the sequencer
     * @return the adapter
     */
    static WaitProtocol library(QiSequencer s) {
        return new WaitProtocol() {
            @Override
            public boolean processed(long gseq) {
                return s.processed(gseq);
            }

            @Override
            public long emitWaitSeq(boolean emitWait) {
                return s.emitWaitSeq(emitWait);
            }

            @Override
            public long quiesce(boolean nowait) {
                return s.quiesce(nowait);
            }

            @Override
            public void statusWrite(int seq) {
                s.statusWrite(seq);
            }

            @Override
            public Runnable task(TlbFlushList<?> list, InvalidationCompletionStatus ics) {
                return new QiTask(list, s, ics);
            }
        };
    }
}
