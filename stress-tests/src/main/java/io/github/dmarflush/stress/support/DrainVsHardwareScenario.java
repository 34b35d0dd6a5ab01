package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.seeded.WaitSequencer;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue test 3, shared by the zombie-head and locked tests: the drain against the
 * hardware side.
 *
 * <p>Three entries wait on the list with wait sequences {@code 0x7FFFFFFE},
 * {@code 0x7FFFFFFF} and {@code 0x80000000} (across the signed 32-bit boundary), their
 * wait descriptors already visible to the hardware. One actor is the hardware: it
 * processes the first two descriptors, writing {@code seqHw} = {@code 0x7FFFFFFE} then
 * {@code 0x7FFFFFFF}; it never processes the third. The other actor is the QI task's
 * drain, with the sequencer's {@code processed} as its stop condition. Each release is
 * checked against {@code seqHw} at that moment: the hardware only moves forward, so an
 * entry whose sequence number is past the status word was never covered by a status write.
 *
 * <p>Result: {@code (released, released before their status write)}.
 */
public abstract class DrainVsHardwareScenario implements Reclaimer<StressEntry> {

    /** The first wait sequence number. */
    public static final int FIRST_SEQ = 0x7FFF_FFFE;

    private final UnitLock unitLock = new UnitLock();
    private final FakeQiUnit unit = new FakeQiUnit();
    private final WaitSequencer sequencer = Subjects.sequencer(unitLock, unit, 0, FIRST_SEQ);
    private final TlbFlushList<StressEntry> list;
    private int released;
    private int early;

    /**
     * @param zombieHead the zombie-head list if true, the locked baseline if false
     */
    protected DrainVsHardwareScenario(boolean zombieHead) {
        list = zombieHead ? Subjects.zombieHeadList(new StressEntry(0), this) : Subjects.lockedList(unitLock, this);
        unitLock.lock();
        try {
            for (int id = 1; id <= 3; id++) {
                Subjects.fillAndEnqueue(list, new StressEntry(id), sequencer.emitWaitSeq(true),
                        id * 0x1000L, id * 0x1000L + 0x1000);
            }
            unit.advanceTail();
        } finally {
            unitLock.unlock();
        }
    }

    /** The hardware actor: completes the first two wait descriptors, in order. */
    protected final void hardware() {
        unit.processNext();
        unit.processNext();
    }

    /**
     * The consumer actor: one drain.
     *
     * @param r {@code (released, released early)}
     */
    protected final void drain(II_Result r) {
        list.drain(sequencer);
        r.r1 = released;
        r.r2 = early;
    }

    @Override
    public void releaseItem(StressEntry e) {
        released++;
        if (Integer.compareUnsigned(GenSeq.seq(e.waitSeq()), sequencer.seqHw()) > 0) {
            early++;
        }
    }

    @Override
    public void retireElement(StressEntry e) {
    }
}
