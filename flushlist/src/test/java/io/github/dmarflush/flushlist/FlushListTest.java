package io.github.dmarflush.flushlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sequential behaviour of both flush lists. Wait sequences here are plain numbers. The
 * timeout is a safety net: a broken list can link an element to itself and loop. It runs
 * each test on a thread of its own, since a same-thread time-out cannot stop a busy loop.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FlushListTest {

    /** Processed up to and including {@code upTo}, as a hardware status word would say. */
    private static SeqProcessed upTo(long upTo) {
        return gseq -> gseq <= upTo;
    }

    private static List<Integer> ids(int fromInclusive, int toInclusive) {
        return IntStream.rangeClosed(fromInclusive, toInclusive).boxed().collect(Collectors.toList());
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void releasesInEnqueueOrder(ListKind kind) {
        var f = kind.fixture();
        for (int i = 1; i <= 100; i++) {
            f.enqueue(i, i);
        }
        assertEquals(100, f.list.drain(upTo(Long.MAX_VALUE)));
        assertEquals(ids(1, 100), f.reclaimer.releasedIds);
        assertTrue(f.list.isEmpty());
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void drainStopsAtFirstUnprocessedAndResumes(ListKind kind) {
        var f = kind.fixture();
        for (int i = 1; i <= 10; i++) {
            f.enqueue(i, i);
        }
        assertEquals(0, f.list.drain(upTo(0)));
        assertEquals(4, f.list.drain(upTo(4)));
        assertEquals(ids(1, 4), f.reclaimer.releasedIds);
        assertFalse(f.list.isEmpty());
        assertEquals(0, f.list.drain(upTo(4)), "nothing new completed");
        assertEquals(6, f.list.drain(upTo(10)));
        assertEquals(ids(1, 10), f.reclaimer.releasedIds);
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void laterProcessedEntryWaitsBehindAnUnprocessedOne(ListKind kind) {
        var f = kind.fixture();
        f.enqueue(1, 1);
        f.enqueue(2, 2);
        f.enqueue(3, 3);
        // Only entry 2 is "processed": FIFO order means nothing may leave.
        assertEquals(0, f.list.drain(gseq -> gseq == 2));
        assertEquals(List.of(), f.reclaimer.releasedIds);
        assertEquals(1, f.list.drain(gseq -> gseq == 1));
        assertEquals(List.of(1), f.reclaimer.releasedIds);
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void entriesEnqueuedAfterADrainAreReleasedLater(ListKind kind) {
        var f = kind.fixture();
        f.enqueue(1, 1);
        assertEquals(1, f.list.drain(upTo(1)));
        f.enqueue(2, 2);
        f.enqueue(3, 3);
        assertEquals(2, f.list.drain(upTo(3)), "entries enqueued after a drain emptied the list must be released");
        assertEquals(List.of(1, 2, 3), f.reclaimer.releasedIds);
    }

    @Test
    void zombieListRetiresTheOldZombieNeverTheTail() {
        var f = ListKind.ZOMBIE_HEAD.fixture();
        var list = (ZombieHeadFlushList<TestEntry>) f.list;
        f.reclaimer.recycle = false; // keep identities stable for this test
        TestEntry a = f.enqueue(1, 1);
        TestEntry b = f.enqueue(2, 2);
        assertEquals(2, list.drain(upTo(2)));
        // a and b released; the dummy (-1) and a retired; b, the tail, is the zombie.
        assertEquals(List.of(1, 2), f.reclaimer.releasedIds);
        assertEquals(List.of(-1, 1), f.reclaimer.retiredIds);
        assertSame(b, list.zombie());
        assertTrue(b.isOnList(), "the zombie is still on the list");
        assertFalse(a.isOnList());
        // A producer may still link after the zombie tail.
        TestEntry c = f.enqueue(3, 3);
        assertEquals(1, list.drain(upTo(3)));
        assertEquals(List.of(-1, 1, 2), f.reclaimer.retiredIds);
        assertSame(c, list.zombie());
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    @Test
    void lockedListRetiresEachEntryRightAfterReleasingIt() {
        var f = ListKind.LOCKED.fixture();
        f.enqueue(1, 1);
        f.enqueue(2, 2);
        assertEquals(2, f.list.drain(upTo(2)));
        assertEquals(List.of(1, 2), f.reclaimer.releasedIds);
        assertEquals(List.of(1, 2), f.reclaimer.retiredIds);
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void recyclingPoolNeverReceivesTheTail(ListKind kind) {
        var f = kind.fixture();
        // Producer and consumer interleave; every enqueue takes from the pool when it can,
        // so an element retired too early would be linked twice and show up as a
        // violation or a wrong release order.
        int next = 1;
        long processedUpTo = 0;
        List<Integer> expected = new ArrayList<>();
        java.util.Random rnd = new java.util.Random(42);
        for (int round = 0; round < 20_000; round++) {
            int burst = rnd.nextInt(4);
            for (int i = 0; i < burst; i++) {
                f.enqueue(next, next);
                expected.add(next);
                next++;
            }
            processedUpTo = Math.min(next - 1, processedUpTo + rnd.nextInt(4));
            f.list.drain(upTo(processedUpTo));
        }
        f.list.drain(upTo(Long.MAX_VALUE));
        assertEquals(expected, f.reclaimer.releasedIds);
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    @Test
    void hundredThousandRoundsKeepAtMostTwoElementsReachable() {
        var f = ListKind.ZOMBIE_HEAD.fixture();
        var list = (ZombieHeadFlushList<TestEntry>) f.list;
        int maxReachable = 0;
        for (int i = 1; i <= 100_000; i++) {
            f.enqueue(i, i);
            maxReachable = Math.max(maxReachable, boundedReachable(list));
            assertEquals(1, list.drain(upTo(i)));
            maxReachable = Math.max(maxReachable, boundedReachable(list));
        }
        assertEquals(2, maxReachable);
        assertEquals(1, list.reachableCount());
        assertEquals(100_000, f.reclaimer.releasedIds.size());
        // Each round retires one element and reuses one: two elements in circulation.
        assertTrue(f.reclaimer.pool.size() <= 1, "pool " + f.reclaimer.pool.size());
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    /** Walks from the zombie like reachableCount, but gives up at 1000 (a cycle). */
    private static int boundedReachable(ZombieHeadFlushList<TestEntry> list) {
        int n = 0;
        for (FlushEntry e = list.zombie(); e != null && n < 1000; e = e.nextPlain()) {
            n++;
        }
        return n;
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void nullEntryIsRejected(ListKind kind) {
        var f = kind.fixture();
        f.unitLock.lock();
        try {
            var e = assertThrows(NullPointerException.class, () -> f.list.enqueue(null));
            assertEquals("entry", e.getMessage());
        } finally {
            f.unitLock.unlock();
        }
        assertThrows(NullPointerException.class, () -> f.list.drain(null));
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void entryStillLinkedIsRejectedAndTheListIsUnchanged(ListKind kind) {
        var f = kind.fixture();
        TestEntry a = f.enqueue(1, 1);
        f.enqueue(2, 2);
        var e = assertThrows(EntryStillLinkedException.class, () -> f.enqueueLocked(f.list, a));
        assertTrue(e.getMessage().contains("still linked"), e.getMessage());
        assertEquals(2, f.list.drain(upTo(2)));
        assertEquals(List.of(1, 2), f.reclaimer.releasedIds);
    }

    @Test
    void theZombieCannotBeEnqueued() {
        var f = ListKind.ZOMBIE_HEAD.fixture();
        var list = (ZombieHeadFlushList<TestEntry>) f.list;
        TestEntry a = f.enqueue(1, 1);
        list.drain(upTo(1));
        assertSame(a, list.zombie());
        var e = assertThrows(EntryStillLinkedException.class, () -> list.enqueue(a));
        assertTrue(e.getMessage().contains("zombie"), e.getMessage());
        // Still works afterwards.
        f.enqueue(2, 2);
        assertEquals(1, list.drain(upTo(2)));
        assertEquals(List.of(1, 2), f.reclaimer.releasedIds);
    }

    @Test
    void aLinkedDummyIsRejected() {
        var f = ListKind.ZOMBIE_HEAD.fixture();
        var list = (ZombieHeadFlushList<TestEntry>) f.list;
        assertThrows(EntryStillLinkedException.class,
                () -> new ZombieHeadFlushList<>(list.zombie(), f.reclaimer));
    }

    @Test
    void secondConcurrentDrainerIsRejected() throws Exception {
        RecordingReclaimer rec = new RecordingReclaimer(true);
        AtomicReference<ZombieHeadFlushList<TestEntry>> listRef = new AtomicReference<>();
        AtomicReference<Throwable> fromOther = new AtomicReference<>();
        // While the consumer is inside drain (in a callback), another thread tries to drain.
        var list = new ZombieHeadFlushList<TestEntry>(new TestEntry(-1), new Reclaimer<>() {
            @Override
            public void releaseItem(TestEntry entry) {
                rec.releaseItem(entry);
                if (entry.id == 1) {
                    Thread other = new Thread(() -> {
                        try {
                            listRef.get().drain(upTo(2));
                        } catch (Throwable t) {
                            fromOther.set(t);
                        }
                    }, "second-drainer");
                    other.start();
                    try {
                        other.join();
                    } catch (InterruptedException ie) {
                        throw new AssertionError(ie);
                    }
                }
            }

            @Override
            public void retireElement(TestEntry element) {
                rec.retireElement(element);
            }
        });
        listRef.set(list);
        for (int id = 1; id <= 2; id++) {
            TestEntry e = new TestEntry(id);
            e.setWaitSeq(id);
            list.enqueue(e);
        }
        // The consumer's result is checked here: an assertion failing on another thread only
        // prints a stack trace, it does not fail the test.
        AtomicReference<Object> consumerResult = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                consumerResult.set(list.drain(upTo(2)));
            } catch (Throwable thrown) {
                consumerResult.set(thrown);
            }
        }, "qi-task");
        consumer.start();
        consumer.join();
        assertEquals(2, consumerResult.get(), "the first drainer releases both entries");
        Throwable t = fromOther.get();
        assertNotNull(t, "the second drainer must be rejected");
        assertEquals(ConcurrentDrainException.class, t.getClass());
        assertTrue(t.getMessage().contains("'second-drainer'") && t.getMessage().contains("'qi-task'"),
                t.getMessage());
        assertEquals(List.of(1, 2), rec.releasedIds, "the rejected call released nothing");
        // After the first drainer has left, another thread may drain.
        TestEntry c = new TestEntry(3);
        c.setWaitSeq(3);
        list.enqueue(c);
        AtomicReference<Object> laterResult = new AtomicReference<>();
        Thread later = new Thread(() -> {
            try {
                laterResult.set(list.drain(upTo(3)));
            } catch (Throwable thrown) {
                laterResult.set(thrown);
            }
        });
        later.start();
        later.join();
        assertEquals(1, laterResult.get());
        assertEquals(List.of(1, 2, 3), rec.releasedIds);
        assertEquals(List.of(), rec.violations, RecordingReclaimer.CONTRACT);
    }

    @Test
    void drainReenteredFromACallbackIsRejected() {
        AtomicReference<ZombieHeadFlushList<TestEntry>> self = new AtomicReference<>();
        AtomicReference<Throwable> inner = new AtomicReference<>();
        var list = new ZombieHeadFlushList<TestEntry>(new TestEntry(-1), new Reclaimer<>() {
            @Override
            public void releaseItem(TestEntry entry) {
                try {
                    self.get().drain(upTo(9));
                } catch (Throwable t) {
                    inner.set(t);
                }
            }

            @Override
            public void retireElement(TestEntry element) {
            }
        });
        self.set(list);
        TestEntry a = new TestEntry(1);
        a.setWaitSeq(1);
        list.enqueue(a);
        assertEquals(1, list.drain(upTo(1)));
        assertEquals(ConcurrentDrainException.class, inner.get().getClass());
        assertTrue(inner.get().getMessage().contains("re-entered"), inner.get().getMessage());
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void reclaimCallbacksRunWithoutTheUnitLock(ListKind kind) {
        // Reclaimer's contract, and the locked baseline's whole cost model: it drops the unit
        // lock around each entry's callbacks (as dmar_qi_task did around the free).
        var f = kind.fixture();
        List<String> heldIn = new ArrayList<>();
        var checking = new Reclaimer<TestEntry>() {
            @Override
            public void releaseItem(TestEntry entry) {
                if (f.unitLock.isHeldByCurrentThread()) {
                    heldIn.add("releaseItem(" + entry + ")");
                }
            }

            @Override
            public void retireElement(TestEntry element) {
                if (f.unitLock.isHeldByCurrentThread()) {
                    heldIn.add("retireElement(" + element + ")");
                }
            }
        };
        TlbFlushList<TestEntry> list = f.newList(checking);
        for (int id = 1; id <= 3; id++) {
            f.enqueueNew(list, id, id);
        }
        assertEquals(3, list.drain(upTo(3)));
        assertEquals(List.of(), heldIn, "callbacks called with the unit lock held");
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void aThrowingCallbackStopsTheDrainAndLeavesTheListUsable(ListKind kind) {
        var f = kind.fixture(); // its lock and its recording reclaimer, behind a throwing one
        RuntimeException boom = new RuntimeException("reclaimer failed");
        var throwing = new Reclaimer<TestEntry>() {
            @Override
            public void releaseItem(TestEntry entry) {
                f.reclaimer.releaseItem(entry);
                if (entry.id == 1) {
                    throw boom;
                }
            }

            @Override
            public void retireElement(TestEntry element) {
                f.reclaimer.retireElement(element);
            }
        };
        TlbFlushList<TestEntry> list = f.newList(throwing);
        for (int id = 1; id <= 3; id++) {
            f.enqueueNew(list, id, id);
        }
        assertSame(boom, assertThrows(RuntimeException.class, () -> list.drain(upTo(3))));
        assertEquals(List.of(1), f.reclaimer.releasedIds, "the drain stopped at the throwing callback");
        assertEquals(2, list.drain(upTo(3)), "the next drain goes on behind the entry");
        assertEquals(List.of(1, 2, 3), f.reclaimer.releasedIds);
        assertTrue(list.isEmpty());
        assertEquals(List.of(), f.reclaimer.violations, RecordingReclaimer.CONTRACT);
    }

    @ParameterizedTest
    @EnumSource(ListKind.class)
    void anEntryReEnqueuedFromReleaseItemIsRejected(ListKind kind) {
        // releaseItem says: do not recycle the entry here, it is still the zombie (zombie-head
        // list) or about to be retired (locked list). Re-enqueueing it must be refused.
        var f = kind.fixture();
        List<Throwable> thrown = new ArrayList<>();
        var recycling = new Reclaimer<TestEntry>() {
            @Override
            public void releaseItem(TestEntry entry) {
                f.reclaimer.releaseItem(entry);
                try {
                    f.enqueueLocked(f.list, entry);
                } catch (EntryStillLinkedException e) {
                    thrown.add(e);
                }
            }

            @Override
            public void retireElement(TestEntry element) {
                f.reclaimer.retireElement(element);
            }
        };
        TlbFlushList<TestEntry> list = f.newList(recycling);
        TestEntry a = f.enqueueNew(list, 1, 1);
        // f.list is another list with the same lock: the entry must not go onto it either.
        assertEquals(1, list.drain(upTo(1)));
        assertEquals(1, thrown.size(), "re-enqueue from releaseItem was accepted");
        String why = kind == ListKind.ZOMBIE_HEAD ? "the zombie head" : "being released by a drain";
        assertTrue(thrown.get(0).getMessage().contains(why), thrown.get(0).getMessage());
        assertTrue(f.list.isEmpty());
        // Once retired it may be enqueued again (on the zombie-head list it is still the zombie).
        if (kind == ListKind.LOCKED) {
            f.enqueueLocked(list, a);
        }
    }

    @Test
    void lockedListChecksTheUnitLock() {
        var f = ListKind.LOCKED.fixture();
        TestEntry a = new TestEntry(1);
        var e = assertThrows(IllegalMonitorStateException.class, () -> f.list.enqueue(a));
        assertTrue(e.getMessage().contains("requires the unit lock"), e.getMessage());
        assertFalse(a.isOnList(), "a rejected enqueue leaves the entry free");
        f.unitLock.lock();
        try {
            assertThrows(IllegalMonitorStateException.class, () -> f.list.drain(upTo(1)));
        } finally {
            f.unitLock.unlock();
        }
    }
}
