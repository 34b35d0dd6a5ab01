package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.stress.support.StressEntry;
import io.github.dmarflush.stress.support.Subjects;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Issue test 1 on the locked baseline list: publication of an entry's fields through the link.
 *
 * <p>The producer, holding the unit lock, fills an entry (wait sequence 7, IOVA range
 * {@code [0x1000, 0x3000)}) and enqueues it, as {@code iommu_qi_invalidate_locked}. The
 * consumer drains concurrently with every sequence processed, as
 * {@code iommu_qi_drain_tlb_flush}, and reports what it saw in the entry it released:
 * {@code (seq, start, end)}, or {@code (-1, -1, -1)} if the entry was not linked yet. The
 * producer's release store of {@code tail.next} and the consumer's acquire load of
 * {@code head.next} are what make the fields visible; an entry seen with a default field
 * is the bug.
 *
 * <p>Catches seeded bug M2L (entry linked before it is filled).
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t Publication_Locked
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *         RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *     -1, -1, -1  30,880,895   34.85%  Acceptable  The drain ran before the link store: nothing to release.
 * 7, 4096, 12288  57,719,512   65.15%  Acceptable  The drain released the entry and saw the seq and IOVA ran...
 * </pre>
 */
@JCStressTest
@Outcome(id = "-1, -1, -1", expect = ACCEPTABLE,
        desc = "The drain ran before the link store: nothing to release.")
@Outcome(id = "7, 4096, 12288", expect = ACCEPTABLE,
        desc = "The drain released the entry and saw the seq and IOVA range the producer wrote.")
@Outcome(expect = FORBIDDEN,
        desc = "The drain released the entry but saw a default (0) seq or range: the link became"
                + " visible before the fields (missing release/acquire, or linked before filled).")
@State
public class Publication_Locked implements Reclaimer<StressEntry> {

    private final ReentrantLock unitLock = new ReentrantLock();
    private final TlbFlushList<StressEntry> list = Subjects.lockedList(unitLock, this);
    private final StressEntry entry = new StressEntry(1);
    private int seenSeq = -1;
    private long seenStart = -1;
    private long seenEnd = -1;

    @Actor
    public void producer() {
        unitLock.lock();
        try {
            Subjects.fillAndEnqueue(list, entry, GenSeq.of(0, 7), 0x1000, 0x3000);
        } finally {
            unitLock.unlock();
        }
    }

    @Actor
    public void consumer(III_Result r) {
        list.drain(gseq -> true);
        r.r1 = seenSeq;
        r.r2 = (int) seenStart;
        r.r3 = (int) seenEnd;
    }

    @Override
    public void releaseItem(StressEntry e) {
        seenSeq = GenSeq.seq(e.waitSeq());
        seenStart = e.start;
        seenEnd = e.end;
    }

    @Override
    public void retireElement(StressEntry e) {
    }
}
