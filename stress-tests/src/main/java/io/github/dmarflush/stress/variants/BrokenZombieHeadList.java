package io.github.dmarflush.stress.variants;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.stress.support.StressEntry;
import io.github.dmarflush.stress.support.Variant;

/**
 * A copy of {@code ZombieHeadFlushList}'s algorithm with one seeded bug, for showing that
 * the stress tests catch it. Not for use: it exists so that each test's FORBIDDEN outcomes
 * can be seen to happen. Links through {@link StressEntry}'s second link; no padding, no
 * link-state guard and no second-drainer guard (the library's guards would turn some of
 * these bugs into exceptions before the tests' own checks see them).
 *
 * <ul>
 *   <li>{@link Variant#M1}: the drain retires the entry it has just dequeued, which is the
 *       new zombie and may be the tail, instead of the old zombie.</li>
 *   <li>{@link Variant#M2}: enqueue links with a plain store instead of a release store.</li>
 *   <li>{@link Variant#M3}: the drain asks whether the sequence number before the entry's
 *       own is processed (off by one), so it releases one entry too many.</li>
 * </ul>
 * Any other variant behaves as the library does.
 */
public final class BrokenZombieHeadList implements TlbFlushList<StressEntry> {

    private final Variant bug;
    private final Reclaimer<? super StressEntry> reclaimer;
    /** Consumer only. */
    private StressEntry head;
    /** Producers only, under the unit lock. */
    private StressEntry tail;

    /**
     * @param bug which bug to seed
     * @param dummy the first zombie
     * @param reclaimer the reclamation callbacks
     */
    public BrokenZombieHeadList(Variant bug, StressEntry dummy, Reclaimer<? super StressEntry> reclaimer) {
        this.bug = bug;
        this.reclaimer = reclaimer;
        dummy.spVnext(null);
        this.head = dummy;
        this.tail = dummy;
    }

    @Override
    public void enqueue(StressEntry entry) {
        entry.spVnext(null);
        if (bug == Variant.M2) {
            tail.spVnext(entry); // BUG M2: plain store, the entry's fields may follow it
        } else {
            tail.soVnext(entry);
        }
        tail = entry;
    }

    @Override
    public int drain(SeqProcessed processed) {
        int released = 0;
        StressEntry zombie = head;
        for (;;) {
            StressEntry next = zombie.laVnext();
            if (next == null) {
                break;
            }
            long gseq = next.waitSeq();
            if (bug == Variant.M3) {
                gseq = GenSeq.of(GenSeq.gen(gseq), GenSeq.seq(gseq) - 1); // BUG M3: off by one
            }
            if (!processed.processed(gseq)) {
                break;
            }
            head = next;
            if (bug == Variant.M1) {
                // BUG M1: hand back the entry just dequeued, which is now the zombie (and the
                // tail if nothing follows it); the old zombie is leaked.
                reclaimer.releaseItem(next);
                reclaimer.retireElement(next);
            } else {
                zombie.spVnext(null);
                reclaimer.retireElement(zombie);
                reclaimer.releaseItem(next);
            }
            released++;
            zombie = next;
        }
        return released;
    }

    @Override
    public boolean isEmpty() {
        return head.laVnext() == null;
    }
}
