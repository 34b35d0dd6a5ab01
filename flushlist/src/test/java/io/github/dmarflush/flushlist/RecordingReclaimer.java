package io.github.dmarflush.flushlist;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Records both callbacks and recycles retired elements through a pool, checking on every
 * call the facts a correct list guarantees. Violations are recorded, not thrown, so that a
 * test sees them even when the list swallows nothing.
 */
final class RecordingReclaimer implements Reclaimer<TestEntry> {
    /** The message of an assertion that no violation was recorded. */
    static final String CONTRACT = "the list broke the reclaim contract (an element retired while still"
            + " linked or twice, the tail retired, an item of a pooled element released)";
    final List<Integer> releasedIds = new ArrayList<>();
    final List<Integer> retiredIds = new ArrayList<>();
    final ArrayDeque<TestEntry> pool = new ArrayDeque<>();
    /** The first few violations; a broken list can produce millions. */
    final List<String> violations = new ArrayList<>();
    /** The last entry enqueued by the test: the list's tail as the producer knows it. */
    TestEntry producerTail;
    boolean recycle = true;
    /**
     * Whether retiring the producer's tail is a violation: true for the zombie-head list,
     * where a producer may still store into the tail's link; false for the locked list,
     * which unlinks the last entry under the lock before retiring it.
     */
    final boolean tailMustSurvive;

    RecordingReclaimer(boolean tailMustSurvive) {
        this.tailMustSurvive = tailMustSurvive;
    }

    @Override
    public void releaseItem(TestEntry entry) {
        if (entry.pooled) {
            violation("released the item of pooled " + entry);
        }
        releasedIds.add(entry.id);
    }

    @Override
    public void retireElement(TestEntry element) {
        if (element.pooled) {
            violation("retired " + element + " twice");
        }
        if (tailMustSurvive && element == producerTail) {
            violation("retired the tail " + element);
        }
        if (element.nextPlain() != null) {
            violation("retired " + element + " with its link still set");
        }
        retiredIds.add(element.id);
        if (recycle) {
            element.pooled = true;
            pool.push(element);
        }
    }

    private void violation(String what) {
        if (violations.size() < 10) {
            violations.add(what);
        }
    }

    /** Takes an element from the pool, or makes one. */
    TestEntry obtain(int id) {
        TestEntry e = pool.poll();
        if (e == null) {
            return new TestEntry(id);
        }
        e.pooled = false;
        e.id = id;
        return e;
    }
}
