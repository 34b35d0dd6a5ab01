package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.seeded.WaitSequencer;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue test 6, shared by the zombie-head and locked tests: the interrupt-status window
 * of {@code dmar_qi_task}.
 *
 * <p>Two entries A and B wait on the list, each with a wait descriptor that requests an
 * interrupt. Before the actors start, the hardware has completed A: its status write,
 * IWC 0 -&gt; 1, one interrupt, which is why the QI task is running. Then the QI task pass
 * (one actor) races the hardware completing B (the other actor). B's completion raises an
 * interrupt only if it finds IWC clear. If it finds IWC still set, no interrupt will come
 * for B, so this task pass must release it: the task clears IWC and drains again for
 * exactly that case. Otherwise B lingers until some unrelated interrupt.
 *
 * <p>Result: {@code (B released by this pass, interrupts raised by B's completion)}.
 */
public abstract class IwcWindowScenario implements Reclaimer<StressEntry> {

    private final UnitLock unitLock = new UnitLock();
    private final FakeQiUnit unit = new FakeQiUnit();
    private final WaitSequencer sequencer = Subjects.sequencer(unitLock, unit, 0, 1);
    private final Runnable qiTask;
    private boolean releasedB;

    /**
     * @param zombieHead the zombie-head list if true, the locked baseline if false
     */
    protected IwcWindowScenario(boolean zombieHead) {
        TlbFlushList<StressEntry> list = zombieHead
                ? Subjects.zombieHeadList(new StressEntry(0), this)
                : Subjects.lockedList(unitLock, this);
        qiTask = Subjects.qiTask(list, sequencer, unit);
        unitLock.lock();
        try {
            Subjects.fillAndEnqueue(list, new StressEntry(1), sequencer.emitWaitSeq(true), 0x1000, 0x2000);
            Subjects.fillAndEnqueue(list, new StressEntry(2), sequencer.emitWaitSeq(true), 0x2000, 0x3000);
            unit.advanceTail();
        } finally {
            unitLock.unlock();
        }
        unit.processNext(); // A completes: IWC 0 -> 1, interrupt 1
    }

    /** The QI task actor: one pass. */
    protected final void task() {
        qiTask.run();
    }

    /** The hardware actor: B completes. */
    protected final void hardware() {
        unit.processNext();
    }

    /**
     * The arbiter.
     *
     * @param r {@code (B released, interrupts for B)}
     */
    protected final void report(II_Result r) {
        r.r1 = releasedB ? 1 : 0;
        r.r2 = unit.interrupts() - 1;
    }

    @Override
    public void releaseItem(StressEntry e) {
        if (e.id == 2) {
            releasedB = true;
        }
    }

    @Override
    public void retireElement(StressEntry e) {
    }
}
