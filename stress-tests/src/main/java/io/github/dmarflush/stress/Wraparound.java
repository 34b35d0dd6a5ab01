package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.stress.support.FakeQiUnit;
import io.github.dmarflush.seeded.WaitSequencer;
import io.github.dmarflush.stress.support.Subjects;
import io.github.dmarflush.stress.support.UnitLock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Issue test 5: sequence allocation across {@code 0xFFFFFFFF} against {@code processed}
 * checks from the task side.
 *
 * <p>The unit starts at generation {@code 0x7FFFFFFF}, next sequence {@code 0xFFFFFFFE}
 * (so the generation also crosses the signed 32-bit boundary). The unit actor, holding
 * the unit lock, as {@code iommu_qi_emit_wait_seq} callers do: allocates e1 =
 * {@code (0x7FFFFFFF, 0xFFFFFFFE)} with a wait descriptor, advances the tail and publishes
 * e1; allocates e2, which wraps: a wait descriptor for {@code 0xFFFFFFFF}, tail advance,
 * spin until it is processed, then generation {@code 0x80000000}, e2 =
 * {@code (0x80000000, 1)}; publishes e2 and advances the tail. The other actor is the
 * hardware and the task side at once: it processes the visible descriptors one at a time,
 * in ring order, and before each step asks {@code processed} about every published entry.
 * Being the hardware, it knows exactly which status writes have happened, so a "yes" for
 * an entry whose status write it has not done yet is an early release. After the last
 * descriptor both entries must be processed.
 *
 * <p>Result: {@code (early yes seen, e2 asked about before its status write, e1 processed
 * at the end, e2 processed at the end)}.
 *
 * <p>Catches M5 (the generation moves on before the old generation's last status write),
 * FREEBSD_WRAP (seqHw left at 0xFFFFFFFF: the new generation's first sequence numbers look
 * processed) and M4 (signed compare: generation 0x7FFFFFFF is "after" 0x80000000, so e1
 * never counts as processed).
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t Wraparound
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *              RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *          0, 0, 1, 1     447,853    3.90%  Acceptable  e2 was first asked about after its status write; no early...
 *          0, 1, 1, 1  11,025,933   96.10%  Acceptable  e2 was asked about while its status write was pending and...
 * 1, [01], [01], [01]           0    0.00%   Forbidden  processed() said yes before the hardware's status write c...
 * </pre>
 */
@JCStressTest
@Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE,
        desc = "e2 was first asked about after its status write; no early yes; both processed at the end.")
@Outcome(id = "0, 1, 1, 1", expect = ACCEPTABLE,
        desc = "e2 was asked about while its status write was pending and processed() said no.")
@Outcome(id = "1, [01], [01], [01]", expect = FORBIDDEN,
        desc = "processed() said yes before the hardware's status write covered the entry: its IOVA"
                + " range would be released before its invalidation completed.")
@Outcome(expect = FORBIDDEN,
        desc = "After every status write an entry is still not processed: it would never be released.")
@State
public class Wraparound {

    private static final int GEN = 0x7FFF_FFFF;

    private final UnitLock unitLock = new UnitLock();
    private final FakeQiUnit unit = new FakeQiUnit();
    private final WaitSequencer sequencer = Subjects.sequencer(unitLock, unit, GEN, 0xFFFF_FFFE);
    private long e1;
    private long e2;
    private volatile boolean e1Published;
    private volatile boolean e2Published;
    private int early;
    private int window;

    @Actor
    public void unitSide() {
        unitLock.lock();
        try {
            long a = sequencer.emitWaitSeq(true);
            unit.advanceTail();
            e1 = a;
            e1Published = true;
            long b = sequencer.emitWaitSeq(true); // wraps
            e2 = b;
            e2Published = true;
            unit.advanceTail();
        } finally {
            unitLock.unlock();
        }
    }

    @Actor
    public void hardwareAndTaskSide(IIII_Result r) {
        // Descriptors: #0 e1, #1 the wrap's 0xFFFFFFFF, #2 e2.
        int done = 0;
        while (done < 3) {
            check(done);
            if (unit.processNext()) {
                done++;
            } else {
                Thread.onSpinWait();
            }
        }
        r.r1 = early;
        r.r2 = window;
        r.r3 = sequencer.processed(e1) ? 1 : 0;
        r.r4 = sequencer.processed(e2) ? 1 : 0;
    }

    private void check(int done) {
        if (e1Published && sequencer.processed(e1) && done < 1) {
            early = 1;
        }
        if (e2Published && done < 3) {
            window = 1;
            if (sequencer.processed(e2)) {
                early = 1;
            }
        }
    }
}
