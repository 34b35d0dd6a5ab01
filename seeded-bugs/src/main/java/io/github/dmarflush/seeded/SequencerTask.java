package io.github.dmarflush.seeded;

import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiTask;
import java.util.Objects;

/**
 * {@link QiTask}'s pass (drain; if ICS.IWC is set, clear it and drain again; wake the waiters)
 * over a {@link WaitSequencer}, for the seeded copies of the sequencer: the library's task
 * takes only the library's {@code QiSequencer}. Not a variant: nothing here is broken. One
 * thread at a time.
 */
public final class SequencerTask implements Runnable {

    private final TlbFlushList<?> flushList;
    private final WaitSequencer sequencer;
    private final InvalidationCompletionStatus ics;

    /**
     * @param flushList the flush list
     * @param sequencer the sequencer, the drain's stop condition
     * @param ics the completion status register
     */
    public SequencerTask(TlbFlushList<?> flushList, WaitSequencer sequencer, InvalidationCompletionStatus ics) {
        this.flushList = Objects.requireNonNull(flushList, "flushList");
        this.sequencer = Objects.requireNonNull(sequencer, "sequencer");
        this.ics = Objects.requireNonNull(ics, "ics");
    }

    @Override
    public void run() {
        flushList.drain(sequencer);
        if (ics.iwc()) {
            ics.clearIwc();
            flushList.drain(sequencer);
        }
        sequencer.wakeupWaiters();
    }
}
