package io.github.dmarflush.flushlist.variants;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;

/**
 * The (gen, seq) protocol as a test harness drives it, so that one harness runs both the
 * library ({@link #library}) and a broken copy ({@link BrokenQiSequencer}). The methods
 * are those of {@link QiSequencer}, with the same locking rules.
 */
public interface WaitProtocol extends SeqProcessed {

    /** See {@link QiSequencer#emitWaitSeq}. */
    long emitWaitSeq(boolean emitWait);

    /** See {@link QiSequencer#registerWaiter}. */
    void registerWaiter();

    /** See {@link QiSequencer#waitForSeq}. */
    void waitForSeq(long gseq, boolean nowait);

    /** See {@link QiSequencer#statusWrite}. */
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
     * The library's {@link QiSequencer} and {@link QiTask}, or with {@link
     * Variant#M8_NO_SECOND_DRAIN} the library's sequencer and a {@link BrokenQiTask}.
     *
     * @param s the sequencer
     * @param variant {@link Variant#NONE}, a {@link Variant.Component#TASK} variant, or a
     *     variant that breaks neither the sequencer nor the task
     * @return the adapter
     */
    static WaitProtocol library(QiSequencer s, Variant variant) {
        if (variant.component() == Variant.Component.SEQUENCER) {
            throw new IllegalArgumentException(variant + " needs BrokenQiSequencer");
        }
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
            public void registerWaiter() {
                s.registerWaiter();
            }

            @Override
            public void waitForSeq(long gseq, boolean nowait) {
                s.waitForSeq(gseq, nowait);
            }

            @Override
            public void statusWrite(int seq) {
                s.statusWrite(seq);
            }

            @Override
            public Runnable task(TlbFlushList<?> list, InvalidationCompletionStatus ics) {
                if (variant.component() != Variant.Component.TASK) {
                    return new QiTask(list, s, ics);
                }
                // Not a method reference: Lincheck cannot read the fields of the hidden class
                // a lambda compiles to, and warns about it.
                Runnable wakeup = new Runnable() {
                    @Override
                    public void run() {
                        s.wakeupWaiters();
                    }
                };
                return new BrokenQiTask(variant, list, s, wakeup, ics);
            }
        };
    }
}
