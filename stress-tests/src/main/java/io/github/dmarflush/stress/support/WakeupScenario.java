package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import org.openjdk.jcstress.infra.results.II_Result;

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
 * <p>The sleep timeout ({@link Subjects#SLEEP_TIMEOUT_NANOS}, 2 s by default) is far
 * longer than the hardware actor ever takes, and the unit lock is a {@link UnitLock},
 * which counts the sleeps that ended because the timeout ran out. Such a sleep is a lost
 * wakeup: the waiter came back only because of its one-tick safety net.
 *
 * <p>Result: {@code (sleeps, sleeps ended by timeout)}.
 */
public abstract class WakeupScenario implements Reclaimer<StressEntry> {

    private final UnitLock unitLock = new UnitLock();
    private final FakeQiUnit unit = new FakeQiUnit();
    private final Sequencer sequencer = Subjects.sequencer(unitLock, unit, 0, 1);
    private final Runnable qiTask;

    /**
     * @param zombieHead the task drains a zombie-head list if true, the locked baseline if false
     */
    protected WakeupScenario(boolean zombieHead) {
        TlbFlushList<StressEntry> list = zombieHead
                ? Subjects.zombieHeadList(new StressEntry(0), this)
                : Subjects.lockedList(unitLock, this);
        qiTask = Subjects.qiTask(list, sequencer, unit);
    }

    /**
     * The waiter actor.
     *
     * @param r {@code (sleeps, sleeps ended by timeout)}
     */
    protected final void waiter(II_Result r) {
        unitLock.lock();
        try {
            sequencer.quiesce(false);
        } finally {
            unitLock.unlock();
        }
        r.r1 = (int) sequencer.sleeps();
        r.r2 = (int) sequencer.sleepsEndedByTimeout();
    }

    /** The hardware-and-interrupt actor: complete the wait descriptor, run the QI task. */
    protected final void hardwareAndTask() {
        unit.processUntil(1);
        qiTask.run();
    }

    @Override
    public void releaseItem(StressEntry e) {
    }

    @Override
    public void retireElement(StressEntry e) {
    }
}
