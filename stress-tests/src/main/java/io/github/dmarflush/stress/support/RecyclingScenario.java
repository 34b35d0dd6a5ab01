package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Issue test 2, shared by the zombie-head and locked tests: enqueue racing drain with a
 * recycling pool.
 *
 * <p>One producer (holding the unit lock for each enqueue) unmaps {@link #ENTRIES} entries
 * with ids 1, 2, ..., taking each element from a {@link Pool} that starts with one spare
 * element and allocating only when the pool is empty. One consumer drains (every sequence
 * processed) until it has everything, putting every retired element back into the pool,
 * so elements go round while the producer is still enqueueing.
 *
 * <p>What is checked, and where:
 * <ul>
 *   <li>Delivery: the consumer records the ids of released items; they must be exactly
 *       1..{@link #ENTRIES} in order.</li>
 *   <li>Writes into pooled elements: an element taken from the pool must have no link set
 *       (a set link means a producer stored into it while it was pooled, or it was retired
 *       still linked); on the zombie-head list the producer's tail must never be pooled,
 *       nor be handed back to it as a new element, since the next enqueue stores into the
 *       tail's link; the consumer must never release or retire an element that is
 *       already pooled.</li>
 * </ul>
 * Result: {@code (released, in order 1/0, pooled-element violations, elements reused)}.
 */
public abstract class RecyclingScenario implements Reclaimer<StressEntry> {

    /** Entries unmapped per iteration. */
    public static final int ENTRIES = 4;

    private final ReentrantLock unitLock = new ReentrantLock();
    private final Pool pool = new Pool();
    private final boolean tailMustSurvive;
    private final TlbFlushList<StressEntry> list;

    // Producer side.
    /** The element the last enqueue linked: the list's tail, for the zombie-head list. */
    private StressEntry tail;
    private int reused;
    private int producerViolations;
    private volatile boolean producerDone;

    // Consumer side.
    private final int[] order = new int[ENTRIES + 2];
    private int delivered;
    private int consumerViolations;
    /** Every sequence is processed; bounded so that a cycle in a broken list ends. */
    private final SeqProcessed allProcessed = gseq -> delivered <= ENTRIES;

    /**
     * @param zombieHead the zombie-head list if true, the locked baseline if false
     */
    protected RecyclingScenario(boolean zombieHead) {
        StressEntry dummy = new StressEntry(0);
        this.list = zombieHead ? Subjects.zombieHeadList(dummy, this) : Subjects.lockedList(unitLock, this);
        this.tailMustSurvive = zombieHead;
        this.tail = zombieHead ? dummy : null;
        pool.put(new StressEntry(-1));
    }

    /**
     * The producer actor: unmap entries 1..ENTRIES, each under the unit lock. A list that
     * refuses an element (the library's {@code EntryStillLinkedException} when the drain
     * handed back an element that is still linked, as seeded bug M1 does) counts as a
     * violation and ends the producer: the consumer must not spin for ever waiting for it.
     */
    protected final void produce() {
        try {
            produceAll();
        } catch (IllegalStateException e) {
            producerViolations++;
        } finally {
            producerDone = true;
        }
    }

    private void produceAll() {
        for (int id = 1; id <= ENTRIES; id++) {
            StressEntry e = pool.take();
            if (e == null) {
                e = new StressEntry(id);
            } else {
                reused++;
                if (e.linkSet()) {
                    producerViolations++; // written into while pooled, or retired while linked
                }
            }
            unitLock.lock();
            try {
                if (tailMustSurvive && (e == tail || tail.pooled)) {
                    producerViolations++; // the tail was handed back: this enqueue stores into it
                }
                e.id = id;
                Subjects.fillAndEnqueue(list, e, GenSeq.of(0, id), id * 0x1000L, id * 0x1000L + 0x1000);
                tail = e;
            } finally {
                unitLock.unlock();
            }
        }
    }

    /** The consumer actor: drain until everything is delivered (or nothing more comes). */
    protected final void consume() {
        for (;;) {
            boolean done = producerDone; // read before the drain: after it, nothing new can come
            int n = list.drain(allProcessed);
            if (delivered >= ENTRIES || (done && n == 0)) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The arbiter: fills the result.
     *
     * @param r {@code (released, in order, violations, reused)}
     */
    protected final void report(IIII_Result r) {
        boolean inOrder = delivered == ENTRIES;
        for (int i = 0; inOrder && i < ENTRIES; i++) {
            inOrder = order[i] == i + 1;
        }
        r.r1 = delivered;
        r.r2 = inOrder ? 1 : 0;
        r.r3 = producerViolations + consumerViolations;
        r.r4 = reused;
    }

    @Override
    public void releaseItem(StressEntry e) {
        if (e.pooled) {
            consumerViolations++;
        }
        if (delivered < order.length) {
            order[delivered] = e.id;
        }
        delivered++;
    }

    @Override
    public void retireElement(StressEntry e) {
        if (e.pooled) {
            consumerViolations++; // retired twice
            return;
        }
        pool.put(e);
    }
}
