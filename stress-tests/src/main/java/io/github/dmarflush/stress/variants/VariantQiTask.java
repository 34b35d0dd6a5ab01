package io.github.dmarflush.stress.variants;

import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.stress.support.Sequencer;
import io.github.dmarflush.stress.support.Variant;

/**
 * A copy of {@code QiTask.run()} over the tests' {@link Sequencer} interface: used whenever
 * the sequencer is a {@link VariantSequencer} (the library's task takes only the library's
 * sequencer), and with {@link Variant#M8} it leaves out the drain after clearing ICS.IWC.
 */
public final class VariantQiTask implements Runnable {

    private final Variant bug;
    private final TlbFlushList<?> list;
    private final Sequencer sequencer;
    private final InvalidationCompletionStatus ics;

    /**
     * @param bug which bug to seed
     * @param list the flush list
     * @param sequencer the sequencer
     * @param ics the completion status register
     */
    public VariantQiTask(Variant bug, TlbFlushList<?> list, Sequencer sequencer, InvalidationCompletionStatus ics) {
        this.bug = bug;
        this.list = list;
        this.sequencer = sequencer;
        this.ics = ics;
    }

    @Override
    public void run() {
        list.drain(sequencer);
        if (ics.iwc()) {
            ics.clearIwc();
            if (bug != Variant.M8) { // BUG M8: an entry completed before the clear lingers
                list.drain(sequencer);
            }
        }
        sequencer.wakeupWaiters();
    }
}
