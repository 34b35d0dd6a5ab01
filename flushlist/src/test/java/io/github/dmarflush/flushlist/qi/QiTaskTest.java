package io.github.dmarflush.flushlist.qi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The QI task's drain / clear IWC / drain again / wake sequence, on both lists. Each test
 * runs on a thread of its own (see {@link QiSequencerTest}).
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class QiTaskTest {

    static final class Entry extends FlushEntry {
        final int id;

        Entry(int id) {
            this.id = id;
        }
    }

    private final ReentrantLock unitLock = new ReentrantLock();
    private final List<Integer> released = new ArrayList<>();
    private final Reclaimer<Entry> reclaimer = new Reclaimer<>() {
        @Override
        public void releaseItem(Entry entry) {
            released.add(entry.id);
        }

        @Override
        public void retireElement(Entry element) {
        }
    };

    private TlbFlushList<Entry> list(boolean zombie) {
        return zombie ? new ZombieHeadFlushList<>(new Entry(0), reclaimer)
                : new LockedFlushList<>(unitLock, reclaimer);
    }

    /** Unmap path: sequence, wait descriptor, link, advance tail, under the lock. */
    private void unload(QiSequencer s, FakeQiHardware hw, TlbFlushList<Entry> list, int id) {
        unitLock.lock();
        try {
            Entry e = new Entry(id);
            e.setWaitSeq(s.emitWaitSeq(true));
            list.enqueue(e);
            hw.advanceTail();
        } finally {
            unitLock.unlock();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void entryCompletedBetweenFirstDrainAndIwcClearIsReleasedInTheSamePass(boolean zombie) {
        // The hardware completes entry 2 exactly when the task reads ICS, i.e. after the
        // first drain and before the clear: IWC is already 1, so no new interrupt comes.
        FakeQiHardware hw = new FakeQiHardware() {
            boolean once;

            @Override
            public boolean iwc() {
                if (!once) {
                    once = true;
                    completeAll();
                }
                return super.iwc();
            }
        };
        QiSequencer s = QiSequencer.builder(unitLock, hw).build();
        hw.sequencer = s;
        TlbFlushList<Entry> list = list(zombie);
        unload(s, hw, list, 1);
        hw.completeUpTo(1); // entry 1 completes, IWC 0 -> 1, interrupt
        assertEquals(1, hw.interrupts);
        unload(s, hw, list, 2); // not yet completed
        QiTask task = new QiTask(list, s, hw);
        task.run();
        assertEquals(List.of(1, 2), released, "entry 2 must not linger until a later interrupt");
        assertEquals(1, task.releasedByFirstDrain());
        assertEquals(1, task.releasedBySecondDrain());
        assertFalse(hw.iwc, "IWC cleared");
        assertEquals(1, hw.interrupts, "no further interrupt was raised for entry 2");
        assertTrue(list.isEmpty());
    }

    @Test
    void waitersAreWokenAfterTheSecondDrainNotBefore() throws Exception {
        // A synchronous waiter's descriptor completes while the task holds ICS.IWC set
        // (between its first drain and the IWC clear): the hardware raises no interrupt for
        // it, so only this pass can wake the waiter, and only with a wakeup that comes after
        // the clear. A task that wakes the waiters right after its first drain wakes them too
        // early: the waiter re-checks, finds its descriptor pending, and sleeps again, and
        // nothing wakes it before its time-out (an hour here). The fake hardware completes
        // the descriptor on the task's ICS read; if a wakeup already went out in this pass,
        // it first lets the woken waiter go back to sleep, so both orders are deterministic.
        CountingLock lock = new CountingLock();
        QiSequencer[] seq = new QiSequencer[1];
        FakeQiHardware hw = new FakeQiHardware() {
            boolean once;

            @Override
            public boolean iwc() {
                if (!once) {
                    once = true;
                    if (lock.signals.get() > 0) {
                        Bounded.awaitUnder(lock, "the woken waiter did not go back to sleep", () -> seq[0].sleeps() >= 2);
                    }
                    completeAll();
                }
                return super.iwc();
            }
        };
        QiSequencer s = QiSequencer.builder(lock, hw).sleepTimeout(1, TimeUnit.HOURS).build();
        seq[0] = s;
        hw.sequencer = s;
        TlbFlushList<Entry> list = new ZombieHeadFlushList<>(new Entry(0), reclaimer);
        lock.lock();
        try {
            Entry e = new Entry(1);
            e.setWaitSeq(s.emitWaitSeq(true));
            list.enqueue(e);
            hw.advanceTail();
        } finally {
            lock.unlock();
        }
        hw.completeUpTo(1); // entry 1 completes: IWC 0 -> 1, the interrupt this pass serves
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            lock.lock();
            try {
                long g = s.emitWaitSeq(true);
                s.registerWaiter();
                hw.advanceTail();
                s.waitForSeq(g, false);
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                lock.unlock();
            }
        }, "waiter");
        waiter.setDaemon(true);
        waiter.start();
        Bounded.awaitUnder(lock, "the waiter never went to sleep", () -> s.sleeps() == 1);
        QiTask task = new QiTask(list, s, hw);
        try {
            task.run();
            assertTrue(Bounded.joined(waiter), "lost wakeup: the waiter whose descriptor completed while ICS.IWC"
                    + " was still set is still asleep after the task pass; QiTask must wake the waiters after"
                    + " clearing IWC and draining again, not before");
        } finally {
            s.wakeupWaiters(); // lets a waiter left asleep by a broken task go
        }
        assertEquals(null, failure.get());
        assertEquals(List.of(1), released);
        assertEquals(1, hw.interrupts, "the waiter's descriptor raised no interrupt of its own");
        assertEquals(0, s.waiters(), QiSequencerTest.DEREGISTERED);
    }

    @Test
    void aPassWithoutWaitersNeverTakesTheUnitLock() {
        // The point of the zombie-head list: the QI task frees entries without the unit
        // lock, so it does not contend with the CPUs that hold it to queue invalidations.
        CountingLock lock = new CountingLock();
        FakeQiHardware hw = new FakeQiHardware();
        QiSequencer s = QiSequencer.builder(lock, hw).build();
        hw.sequencer = s;
        TlbFlushList<Entry> list = new ZombieHeadFlushList<>(new Entry(0), reclaimer);
        for (int id = 1; id <= 3; id++) {
            lock.lock();
            try {
                Entry e = new Entry(id);
                e.setWaitSeq(s.emitWaitSeq(true));
                list.enqueue(e);
                hw.advanceTail();
            } finally {
                lock.unlock();
            }
        }
        hw.completeAll();
        int before = lock.lockCalls.get();
        new QiTask(list, s, hw).run();
        assertEquals(List.of(1, 2, 3), released);
        assertEquals(before, lock.lockCalls.get(), "the QI task took the unit lock with no synchronous waiter registered");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void taskReleasesOnlyProcessedEntries(boolean zombie) {
        FakeQiHardware hw = new FakeQiHardware();
        QiSequencer s = QiSequencer.builder(unitLock, hw).build();
        hw.sequencer = s;
        TlbFlushList<Entry> list = list(zombie);
        for (int i = 1; i <= 5; i++) {
            unload(s, hw, list, i);
        }
        hw.completeUpTo(3);
        QiTask task = new QiTask(list, s, hw);
        task.run();
        assertEquals(List.of(1, 2, 3), released);
        assertEquals(1, task.iwcClears());
        hw.completeAll();
        task.run();
        assertEquals(List.of(1, 2, 3, 4, 5), released);
        assertEquals(2, task.runs());
    }
}
