package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.seeded.WaitSequencer;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Issue test 4, shared by the zombie-head and locked tests: the waiter/wakeup protocol.
 *
 * <p>One actor is a synchronous invalidation ({@code iommu_qi_invalidate_sync}): holding
 * the unit lock it emits a wait descriptor, registers as a waiter, advances the queue tail
 * and waits, sleeping on the unit lock's condition. The other actor is the hardware and
 * the interrupt: it processes the descriptor as soon as the tail makes it visible (status
 * write, IWC 0 -&gt; 1) and runs one QI task pass ({@code dmar_qi_task}), which must wake
 * the waiter.
 *
 * <p>The sleep timeout ({@link Subjects#SLEEP_TIMEOUT_NANOS}, 5 s by default) is far
 * longer than the hardware actor normally takes, and the unit lock is a {@link UnitLock},
 * which counts the sleeps that ended because the timeout ran out with no signal, split by
 * whether the QI task pass had already finished at that moment. If it had, its wakeup
 * came and went and the waiter slept on: a lost wakeup, rescued only by the one-tick
 * safety net (FORBIDDEN). If it had not, the hardware actor was descheduled for longer
 * than the timeout and its wakeup was still to come: not a protocol failure, reported as
 * interesting (seen once with a 2 s timeout during a full run on this shared machine).
 *
 * <p>Result: {@code (sleeps, timeouts after the task pass = lost wakeups, timeouts before
 * the task pass)}.
 */
public abstract class WakeupScenario implements Reclaimer<StressEntry> {

    private final UnitLock unitLock = new UnitLock();
    private final FakeQiUnit unit = new FakeQiUnit();
    private final WaitSequencer sequencer = Subjects.sequencer(unitLock, unit, 0, 1);
    private final Runnable qiTask;
    private volatile boolean taskPassDone;

    /**
     * @param zombieHead the task drains a zombie-head list if true, the locked baseline if false
     */
    protected WakeupScenario(boolean zombieHead) {
        TlbFlushList<StressEntry> list = zombieHead
                ? Subjects.zombieHeadList(new StressEntry(0), this)
                : Subjects.lockedList(unitLock, this);
        qiTask = Subjects.qiTask(list, sequencer, unit);
        unitLock.wakerDoneWhen(() -> taskPassDone);
    }

    /**
     * The waiter actor.
     *
     * @param r {@code (sleeps, lost wakeups, timeouts before the task pass)}
     */
    protected final void waiter(III_Result r) {
        unitLock.lock();
        try {
            sequencer.quiesce(false);
        } finally {
            unitLock.unlock();
        }
        r.r1 = (int) sequencer.sleeps();
        r.r2 = (int) unitLock.timedOutAfterWaker();
        r.r3 = (int) unitLock.timedOutBeforeWaker();
    }

    /** The hardware-and-interrupt actor: complete the wait descriptor, run the QI task. */
    protected final void hardwareAndTask() {
        unit.processUntil(1);
        qiTask.run();
        taskPassDone = true;
    }

    @Override
    public void releaseItem(StressEntry e) {
    }

    @Override
    public void retireElement(StressEntry e) {
    }
}
