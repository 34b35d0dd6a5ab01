package io.github.dmarflush.seeded.variants;

import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.util.Objects;

// SEEDED BUG M8: the task does not drain a second time after clearing ICS.IWC.
// A copy of QiTask with that one change, marked in the code below, for the seeded-bugs
// matrix (module seeded-bugs; never in the flushlist jar).

/**
 * The QI task, run on a single task thread when the unit raises its invalidation
 * completion interrupt, as FreeBSD's {@code dmar_qi_task} ({@code sys/x86/iommu/intel_qi.c}).
 *
 * <ol>
 *   <li>Drain the flush list up to the first unprocessed entry.</li>
 *   <li>If ICS.IWC is set, clear it and <b>drain again</b>: an entry the hardware completed
 *       between the first drain and the clear raised no interrupt (IWC was still 1), so
 *       without the second drain it would wait for some later interrupt.</li>
 *   <li>If synchronous waiters are registered, take the unit lock and wake them
 *       ({@link QiSequencer#wakeupWaiters}).</li>
 * </ol>
 * With a {@link io.github.dmarflush.flushlist.ZombieHeadFlushList} the task takes the unit
 * lock only for step 3; with the {@link io.github.dmarflush.flushlist.LockedFlushList}
 * baseline each drain takes it once, and again after each entry it releases.
 *
 * <h2>Thread-safety</h2>
 * Run by one thread at a time (the unit's task queue thread). The counters may be read
 * from any thread.
 */
public final class QiTaskM8 implements Runnable {

    private final TlbFlushList<?> flushList;
    private final QiSequencer sequencer;
    private final InvalidationCompletionStatus ics;

    private volatile long runs;
    private volatile long releasedByFirstDrain;
    private volatile long releasedBySecondDrain;
    private volatile long iwcClears;

    /**
     * @param flushList the unit's TLB flush list
     * @param sequencer the unit's wait-sequence state, the drain's stop condition
     * @param ics the unit's completion status register
     * @throws NullPointerException if an argument is null
     */
    public QiTaskM8(TlbFlushList<?> flushList, QiSequencer sequencer, InvalidationCompletionStatus ics) {
        this.flushList = Objects.requireNonNull(flushList, "flushList");
        this.sequencer = Objects.requireNonNull(sequencer, "sequencer");
        this.ics = Objects.requireNonNull(ics, "ics");
    }

    /**
     * One pass of the task, as described in the class documentation.
     *
     * @throws io.github.dmarflush.flushlist.ConcurrentDrainException if another thread is
     *     running a pass on the same {@link io.github.dmarflush.flushlist.ZombieHeadFlushList}
     */
    @Override
    public void run() {
        long first = flushList.drain(sequencer);
        long second = 0;
        if (ics.iwc()) {
            ics.clearIwc();
            iwcClears++;
            // SEEDED BUG M8: no second drain; an entry completed since the first waits for a later interrupt
        }
        sequencer.wakeupWaiters();
        runs++;
        releasedByFirstDrain += first;
        releasedBySecondDrain += second;
    }

    /** @return the number of completed passes */
    public long runs() {
        return runs;
    }

    /** @return entries released by the first drain of each pass */
    public long releasedByFirstDrain() {
        return releasedByFirstDrain;
    }

    /**
     * Entries released by the drain after clearing IWC: each one would otherwise have
     * lingered until a later interrupt.
     *
     * @return the count
     */
    public long releasedBySecondDrain() {
        return releasedBySecondDrain;
    }

    /** @return how many passes found ICS.IWC set and cleared it */
    public long iwcClears() {
        return iwcClears;
    }
}
