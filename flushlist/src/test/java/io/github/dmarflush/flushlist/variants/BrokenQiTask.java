package io.github.dmarflush.flushlist.variants;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiTask;

/**
 * {@link QiTask}'s pass (drain; if ICS.IWC: clear it, drain again; wake the waiters) with
 * {@link Variant#M8_NO_SECOND_DRAIN} switchable. With any other variant it does what
 * {@code QiTask} does. One thread at a time.
 */
public final class BrokenQiTask implements Runnable {

    private final Variant variant;
    private final TlbFlushList<?> list;
    private final SeqProcessed processed;
    private final Runnable wakeupWaiters;
    private final InvalidationCompletionStatus ics;

    /**
     * @param variant the variant
     * @param list the flush list
     * @param processed the drain's stop condition
     * @param wakeupWaiters the last step ({@code QiSequencer::wakeupWaiters} or a copy)
     * @param ics the completion status register
     */
    public BrokenQiTask(Variant variant, TlbFlushList<?> list, SeqProcessed processed,
            Runnable wakeupWaiters, InvalidationCompletionStatus ics) {
        this.variant = variant;
        this.list = list;
        this.processed = processed;
        this.wakeupWaiters = wakeupWaiters;
        this.ics = ics;
    }

    @Override
    public void run() {
        list.drain(processed);
        if (ics.iwc()) {
            ics.clearIwc();
            if (variant != Variant.M8_NO_SECOND_DRAIN) {
                list.drain(processed);
            } // BROKEN (M8): an entry completed since the first drain stays until a later interrupt
        }
        wakeupWaiters.run();
    }
}
