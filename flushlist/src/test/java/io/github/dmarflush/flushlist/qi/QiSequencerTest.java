package io.github.dmarflush.flushlist.qi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The (gen, seq) protocol and the synchronous waiter. The class time-out runs each test on
 * a thread of its own, so that a test stuck in one of the library's spins (which do not
 * look at interrupts) fails after 10 s instead of hanging the build; the steps that can
 * spin or sleep also have their own 5 s bounds with a message ({@link Bounded}).
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class QiSequencerTest {

    /** The message when a waiter stays counted after waitForSeq returned. */
    static final String DEREGISTERED = "waitForSeq must deregister its waiter (inv_seq_waiters--) when it returns:"
            + " a count left behind makes every later QI task pass take the unit lock to wake nobody";

    private final CountingLock unitLock = new CountingLock();
    private final FakeQiHardware hw = new FakeQiHardware();

    private QiSequencer sequencer(QiSequencer.Builder b) {
        QiSequencer s = b.build();
        hw.sequencer = s;
        return s;
    }

    private long emit(QiSequencer s, boolean emitWait) {
        unitLock.lock();
        try {
            return s.emitWaitSeq(emitWait);
        } finally {
            unitLock.unlock();
        }
    }

    @Test
    void startsAtGenZeroSeqOne() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        assertEquals(GenSeq.of(0, 1), emit(s, true));
        assertEquals(GenSeq.of(0, 2), emit(s, true));
        assertEquals(List.of(new FakeQiHardware.WaitDescriptor(1, true, true),
                new FakeQiHardware.WaitDescriptor(2, true, true)), hw.ring,
                "emitWaitSeq(true) writes one wait descriptor with the IF (interrupt) and SW (status write) bits");
        assertEquals(3, s.nextSeq(), "the next number to hand out");
        assertEquals(2, hw.ensureCalls, "one queue.ensure(1) before each descriptor");
    }

    @Test
    void theStatusWordItselfIsProcessed() {
        // processed(g, s) is s <= seqHw: the descriptor whose status data the hardware wrote
        // is complete. With s < seqHw every wait would end one descriptor late, and a wait
        // for the last descriptor queued (quiesce, the wrap) would never end.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(2, 5));
        assertEquals(4, s.seqHw(), "startAt(2, 5) means descriptors up to 4 have completed");
        assertTrue(s.processed(GenSeq.of(2, 4)), "seq equal to the status word (4) must read processed");
        assertFalse(s.processed(GenSeq.of(2, 5)));
        s.statusWrite(5);
        assertEquals(5, s.seqHw());
        assertTrue(s.processed(GenSeq.of(2, 5)), "seq equal to the status word (5) must read processed");
        assertFalse(s.processed(GenSeq.of(2, 6)));
    }

    @Test
    void withoutEmitWaitASequenceIsHandedOutButNoDescriptorWritten() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        long a = emit(s, false);
        long b = emit(s, true);
        assertEquals(GenSeq.of(0, 1), a);
        assertEquals(1, hw.ring.size());
        unitLock.lock();
        hw.advanceTail();
        unitLock.unlock();
        assertFalse(s.processed(a));
        hw.completeAll();
        assertTrue(s.processed(a), "a later status write covers a coalesced entry");
        assertTrue(s.processed(b));
    }

    @Test
    void sequenceNumbersAboveSignedMaxCompareUnsigned() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(3, 0x7FFF_FFF0));
        s.statusWrite(0x7FFF_FFFF);
        assertTrue(s.processed(GenSeq.of(3, 0x7FFF_FFFF)));
        assertFalse(s.processed(GenSeq.of(3, 0x8000_0000)),
                "seqHw 0x7FFFFFFF must not make seq 0x80000000 processed");
        assertFalse(s.processed(GenSeq.of(3, 0xFFFF_FFFE)));
        s.statusWrite(0x8000_0000);
        assertTrue(s.processed(GenSeq.of(3, 0x8000_0000)));
        assertTrue(s.processed(GenSeq.of(3, 0x7FFF_FFFF)),
                "seqHw 0x80000000 covers 0x7FFFFFFF (a signed compare would say no)");
        assertTrue(s.processed(GenSeq.of(3, 1)));
        assertFalse(s.processed(GenSeq.of(3, 0x8000_0001)));
        s.statusWrite(0xFFFF_FFFE);
        assertTrue(s.processed(GenSeq.of(3, 0x8000_0001)));
        assertFalse(s.processed(GenSeq.of(3, 0xFFFF_FFFF)));
    }

    @Test
    void generationsCompareBeforeSequences() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(5, 10));
        assertTrue(s.processed(GenSeq.of(4, 0xFFFF_FFFF)), "an older generation is processed");
        assertFalse(s.processed(GenSeq.of(6, 1)), "a newer generation is not");
        assertTrue(s.processed(GenSeq.of(5, 9)));
        assertFalse(s.processed(GenSeq.of(5, 10)));
    }

    @Test
    void wraparoundWaitsForTheLastSequenceThenStartsTheNextGenerationAtOne() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(7, 0xFFFF_FFFD));
        hw.autoComplete = true; // the spin in the wrap needs the hardware to make progress
        assertEquals(GenSeq.of(7, 0xFFFF_FFFD), emit(s, true));
        assertEquals(GenSeq.of(7, 0xFFFF_FFFE), emit(s, true));
        hw.autoComplete = false;
        unitLock.lock();
        hw.advanceTail();
        unitLock.unlock();
        hw.completeAll();
        hw.autoComplete = true;
        assertEquals(GenSeq.of(8, 1), Bounded.returnsWithin("the wrap at (gen 7, seq 0xffffffff) never"
                + " saw its own wait descriptor processed: emitWaitSeq is still spinning", () -> emit(s, true)));
        assertEquals(GenSeq.of(8, 2), emit(s, true));
        assertEquals(GenSeq.of(8, 3), emit(s, true));
        assertEquals(8, s.gen());
        assertEquals(1, s.generationWraps());
        // The 0xFFFFFFFF descriptor was emitted without interrupt and waited for.
        var wrapDescr = hw.ring.get(2);
        assertEquals(new FakeQiHardware.WaitDescriptor(0xFFFF_FFFF, false, true), wrapDescr);
        assertTrue(s.processed(GenSeq.of(7, 0xFFFF_FFFF)));
    }

    @Test
    void wrapStartsTheNextGenerationOnlyAfterTheHardwareProcessedTheLastSequence() throws Exception {
        // The test above completes descriptors inside advanceTail, so a wrap that did not
        // wait at all passed it too. Here the hardware is slow: it completes the wrap's
        // descriptor 100 ms later, on its own thread, and notes the generation it sees just
        // before its status write. A wrap that waits is still in generation 7 then.
        int[] genBeforeStatusWrite = {-1};
        Thread[] engine = new Thread[1];
        FakeQiHardware slow = new FakeQiHardware() {
            @Override
            public void advanceTail() {
                super.advanceTail();
                if (engine[0] == null) {
                    engine[0] = new Thread(() -> {
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        genBeforeStatusWrite[0] = sequencer.gen();
                        completeAll();
                    }, "qi-engine");
                    engine[0].start();
                }
            }
        };
        QiSequencer s = QiSequencer.builder(unitLock, slow).startAt(7, 0xFFFF_FFFF).build();
        slow.sequencer = s;
        long first = Bounded.returnsWithin("the wrap never saw (gen 7, seq 0xffffffff) processed:"
                + " emitWaitSeq is still spinning", () -> emit(s, false)); // wraps; no descriptor of its own
        assertTrue(Bounded.joined(engine[0]), "the hardware thread did not finish");
        assertEquals(GenSeq.of(8, 1), first);
        assertEquals(7, genBeforeStatusWrite[0],
                "generation 8 started before the hardware processed (7, 0xFFFFFFFF)");
        assertEquals(List.of(new FakeQiHardware.WaitDescriptor(0xFFFF_FFFF, false, true)), slow.ring);
    }

    @Test
    void entriesAfterTheWrapAreNotProcessedBeforeTheirStatusWrite() {
        // FreeBSD leaves seqHw at 0xFFFFFFFF after the wrap, so (gen+1, s) reads processed
        // for every s until the first status write of the new generation; the entries
        // unloaded after the wrapping one would be released before their invalidation ran.
        // This library resets seqHw before bumping gen.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(0, 0xFFFF_FFFF));
        long first;
        long second;
        hw.autoComplete = true; // the wrap's spin needs the hardware to run
        first = Bounded.returnsWithin("the wrap never saw (gen 0, seq 0xffffffff) processed:"
                + " emitWaitSeq is still spinning", () -> emit(s, true)); // wraps inside this call
        hw.autoComplete = false;
        second = emit(s, true); // queued, tail not advanced: not processed
        assertEquals(GenSeq.of(1, 1), first);
        assertEquals(GenSeq.of(1, 2), second);
        assertFalse(s.processed(second), "(1, 2) has not even been handed to the hardware");
        assertFalse(s.processed(first), "(1, 1) has not been written by the hardware yet");
        assertEquals(0, s.seqHw(), "the status word is reset with the new generation");
        unitLock.lock();
        hw.advanceTail();
        unitLock.unlock();
        hw.completeUpTo(hw.ring.size() - 1);
        assertTrue(s.processed(first));
        assertFalse(s.processed(second));
        hw.completeAll();
        assertTrue(s.processed(second));
    }

    @Test
    void emitRequiresTheUnitLock() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        var e = assertThrows(IllegalMonitorStateException.class, () -> s.emitWaitSeq(true));
        assertTrue(e.getMessage().contains("emitWaitSeq requires the unit lock"), e.getMessage());
        assertThrows(IllegalMonitorStateException.class, s::registerWaiter);
    }

    @Test
    void waitWithoutRegisteringIsRejected() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        hw.autoComplete = true; // a wait that were let through would return, not spin
        unitLock.lock();
        try {
            long g = s.emitWaitSeq(true);
            hw.advanceTail();
            var e = assertThrows(IllegalStateException.class, () -> s.waitForSeq(g, true),
                    "waitForSeq with no registered waiter must be refused");
            assertTrue(e.getMessage().contains("without registerWaiter()"), e.getMessage());
            assertEquals(0, s.waiters(), "a refused wait leaves inv_seq_waiters at 0");
        } finally {
            unitLock.unlock();
        }
    }

    @Test
    void waitForASequenceNeverHandedOutIsRejectedNotAHang() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(4, 7));
        hw.autoComplete = true;
        // Preemptive: without the check this wait spins forever with the lock held.
        var e = Bounded.returnsWithin("waitForSeq on a sequence never handed out is spinning"
                + " instead of being refused", () -> {
            unitLock.lock();
            try {
                long issued = s.emitWaitSeq(true); // (4, 7); the next is (4, 8)
                s.registerWaiter();
                hw.advanceTail();
                IllegalArgumentException future = assertThrows(IllegalArgumentException.class,
                        () -> s.waitForSeq(GenSeq.of(4, 8), true));
                assertEquals(0, s.waiters(), "the registration is undone");
                s.registerWaiter();
                assertThrows(IllegalArgumentException.class, () -> s.waitForSeq(GenSeq.of(5, 1), true));
                s.registerWaiter();
                s.waitForSeq(issued, true); // issued and processed: returns
                s.registerWaiter();
                s.waitForSeq(GenSeq.of(3, 0xFFFF_FFFF), true); // an older generation: returns
                assertEquals(0, s.waiters(), DEREGISTERED);
                return future;
            } finally {
                unitLock.unlock();
            }
        });
        assertEquals("waitForSeq (gen 4, seq 0x00000008) was never handed out by emitWaitSeq"
                + " (the next is (gen 4, seq 0x00000008)); it would wait forever", e.getMessage());
    }

    @Test
    void builderRejectsBadArguments() {
        assertThrows(IllegalArgumentException.class,
                () -> QiSequencer.builder(unitLock, hw).sleepTimeout(-1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> QiSequencer.builder(unitLock, hw).startAt(0, 0));
        // 0 is allowed: no time-out (the Lincheck model's setting).
        QiSequencer.builder(unitLock, hw).sleepTimeout(0, TimeUnit.SECONDS).build();
        assertThrows(NullPointerException.class, () -> QiSequencer.builder(null, hw));
        assertEquals("queue", assertThrows(NullPointerException.class,
                () -> QiSequencer.builder(unitLock, null)).getMessage());
        assertEquals("unit", assertThrows(NullPointerException.class,
                () -> QiSequencer.builder(unitLock, hw).sleepTimeout(1, null)).getMessage());
    }

    @Test
    void spinningWaiterReturnsOnceProcessed() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        hw.autoComplete = true; // completes what the tail advance publishes
        long g = Bounded.returnsWithin("quiesce(nowait) is still spinning on its own wait descriptor"
                + " (the tail not advanced past it, or the wait never sees it processed)", () -> {
                    unitLock.lock();
                    try {
                        return s.quiesce(true);
                    } finally {
                        unitLock.unlock();
                    }
                });
        assertEquals(GenSeq.of(0, 1), g, "quiesce returns the (gen, seq) it waited for");
        assertTrue(s.processed(g));
        assertEquals(1, hw.tail, "quiesce advanced the tail past its descriptor");
        assertEquals(1, hw.waitersAtLastAdvance, "quiesce advanced the tail before registering its waiter:"
                + " a QI task that runs in between reads inv_seq_waiters = 0 and sends no wakeup");
        assertEquals(0, s.waiters(), DEREGISTERED);
        assertEquals(0, s.sleeps());
    }

    @Test
    void sleepingWaiterIsWokenByTheTaskNotByItsTimeout() throws Exception {
        // A one-hour timeout: only a wakeup can end this wait within the test's time.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).sleepTimeout(1, TimeUnit.HOURS));
        long[] waited = new long[1];
        Thread waiter = new Thread(() -> {
            unitLock.lock();
            try {
                long g = s.emitWaitSeq(true);
                s.registerWaiter(); // before the tail advance
                hw.advanceTail();
                waited[0] = g;
                s.waitForSeq(g, false);
            } finally {
                unitLock.unlock();
            }
        }, "waiter");
        waiter.setDaemon(true);
        waiter.start();
        // Wait until the waiter sleeps (it releases the lock and stays registered).
        Bounded.awaitUnder(unitLock, "the waiter never went to sleep on the unit lock's condition",
                () -> s.sleeps() == 1);
        assertEquals(1, s.waiters());
        hw.completeAll(); // the waiter's tail advance happened before it slept (lock order)
        var task = new QiTask(new io.github.dmarflush.flushlist.ZombieHeadFlushList<>(
                new io.github.dmarflush.flushlist.FlushEntry(), noReclaim()), s, hw);
        task.run();
        assertTrue(Bounded.joined(waiter), "the QI task's wakeup did not end the sleep (lost wakeup)");
        assertTrue(s.processed(waited[0]));
        assertEquals(0, s.waiters(), DEREGISTERED);
        assertEquals(0, s.sleepTimeouts());
    }

    @Test
    void generationsCompareUnsignedAcrossTheSignBit() {
        // Generation 0x7FFFFFFF wraps to 0x80000000, negative as a signed int. Compared
        // signed, the old generation looks newer than the current one: its entries would
        // never read processed (never released) and a wait for one would be refused.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(0x7FFF_FFFF, 0xFFFF_FFFE));
        List<Long> released = new ArrayList<>();
        var list = new ZombieHeadFlushList<FlushEntry>(new FlushEntry(), new Reclaimer<>() {
            @Override
            public void releaseItem(FlushEntry entry) {
                released.add(entry.waitSeq());
            }

            @Override
            public void retireElement(FlushEntry element) {
            }
        });
        FlushEntry old = new FlushEntry();
        unitLock.lock();
        try {
            old.setWaitSeq(s.emitWaitSeq(true)); // (0x7FFFFFFF, 0xFFFFFFFE)
            list.enqueue(old);
            hw.advanceTail();
        } finally {
            unitLock.unlock();
        }
        hw.autoComplete = true; // the wrap's spin needs the hardware to run
        long next = Bounded.returnsWithin("the wrap into generation 0x80000000 is still spinning",
                () -> emit(s, true));
        assertEquals(GenSeq.of(0x8000_0000, 1), next);
        assertEquals(0x8000_0000, s.gen());
        assertTrue(s.processed(old.waitSeq()), GenSeq.toString(old.waitSeq())
                + " must read processed once the sequencer is in generation 0x80000000 (unsigned compare)");
        assertFalse(s.processed(next), GenSeq.toString(next) + " has not been completed");
        assertFalse(s.processed(GenSeq.of(0x8000_0001, 1)), "a later generation is not processed");
        assertEquals(1, list.drain(s), "the drain after the wrap must release the old generation's entry");
        assertEquals(List.of(old.waitSeq()), released);
        Bounded.returnsWithin("a wait for the old generation's sequence is still spinning", () -> {
            unitLock.lock();
            try {
                s.registerWaiter();
                s.waitForSeq(old.waitSeq(), true); // an older generation: accepted, returns at once
                return null;
            } finally {
                unitLock.unlock();
            }
        });
        assertEquals(0, s.waiters(), DEREGISTERED);
    }

    @Test
    void waitingForAnAlreadyProcessedSequenceDoesNotSleep() {
        // iommu_qi_wait_for_seq checks before it sleeps. A waiter whose descriptor completed
        // before the wait began (here: as the tail passed it) must return at once; sleeping
        // first would hold it for the whole sleep time-out, since no wakeup is coming.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw)); // the 1 s default time-out
        hw.autoComplete = true;
        unitLock.lock();
        try {
            long g = s.emitWaitSeq(true);
            s.registerWaiter();
            hw.advanceTail();
            assertTrue(s.processed(g));
            s.waitForSeq(g, false);
            assertEquals(0, s.sleeps(), "waitForSeq went to sleep although " + GenSeq.toString(g)
                    + " was already processed: it must check before its first sleep");
            assertEquals(0, s.waiters(), DEREGISTERED);
        } finally {
            unitLock.unlock();
        }
    }

    @Test
    void waitForSeqAndQuiesceRequireTheUnitLock() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        hw.autoComplete = true;
        var e = assertThrows(IllegalMonitorStateException.class, () -> s.waitForSeq(GenSeq.of(0, 1), true),
                "waitForSeq without the unit lock must be refused");
        assertTrue(e.getMessage().contains("waitForSeq requires the unit lock"), e.getMessage());
        assertThrows(IllegalMonitorStateException.class, () -> s.quiesce(true),
                "quiesce without the unit lock must be refused");
        assertEquals(0, s.waiters(), DEREGISTERED);
        assertEquals(List.of(), hw.ring, "a refused call writes nothing");
    }

    @Test
    void aSpinningWaiterKeepsTheUnitLock() throws Exception {
        // nowait: a context that may not sleep; FreeBSD spins with the unit lock held.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        Waiter w = new Waiter(s, true);
        w.start();
        assertTrue(w.registered.await(Bounded.LIMIT.toMillis(), TimeUnit.MILLISECONDS), "the waiter did not start");
        try {
            if (unitLock.tryLock(100, TimeUnit.MILLISECONDS)) {
                unitLock.unlock();
                fail("waitForSeq(nowait) let go of the unit lock while its sequence was pending:"
                        + " it must spin with the lock held");
            }
        } finally {
            hw.completeAll();
        }
        assertTrue(Bounded.joined(w), "the spinning waiter did not return once its sequence was processed");
        w.assertNoFailure();
        assertEquals(0, s.sleeps(), "a nowait waiter never sleeps");
        assertEquals(0, s.waiters(), DEREGISTERED);
    }

    @Test
    void aSleepThatRunsOutReChecksOnItsOwnAndIsCounted() throws Exception {
        // No QI task runs here: nothing sends a wakeup. The sleep time-out is what lets the
        // waiter see its sequence processed (FreeBSD's msleep of hz ticks).
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).sleepTimeout(2, TimeUnit.MILLISECONDS));
        Waiter w = new Waiter(s, false);
        w.start();
        Bounded.await("no sleep of the waiter ran out and was counted in sleepTimeouts()",
                () -> s.sleepTimeouts() >= 1);
        hw.completeAll();
        assertTrue(Bounded.joined(w), "a waiter whose sleep runs out must re-check on its own and return"
                + " once its sequence is processed, without a wakeup");
        w.assertNoFailure();
        assertEquals(0, unitLock.signals.get(), "no wakeup was sent");
        assertTrue(s.sleepTimeouts() >= 1 && s.sleepTimeouts() <= s.sleeps(),
                "sleepTimeouts " + s.sleepTimeouts() + ", sleeps " + s.sleeps());
        assertEquals(0, s.waiters(), DEREGISTERED);
    }

    @Test
    void aSleepReportedAsExactlyZeroRemainingCountsAsTimedOut() throws Exception {
        // The unit lock is the caller's: its condition may report a wait that ran out as 0.
        unitLock.zeroWhenTimedOut = true;
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).sleepTimeout(2, TimeUnit.MILLISECONDS));
        Waiter w = new Waiter(s, false);
        w.start();
        try {
            Bounded.await("a sleep that ran out with 0 ns remaining was not counted in sleepTimeouts()",
                    () -> s.sleepTimeouts() >= 1);
        } finally {
            hw.completeAll();
        }
        assertTrue(Bounded.joined(w), "the waiter did not return once its sequence was processed");
        w.assertNoFailure();
    }

    @Test
    void withoutASleepTimeoutOnlyAWakeupEndsTheSleep() throws Exception {
        // sleepTimeout 0: no time-out (the Lincheck model's setting, where a lost wakeup
        // must hang). The sleep must neither return on its own nor turn into a spin.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).sleepTimeout(0, TimeUnit.SECONDS));
        Waiter w = new Waiter(s, false);
        w.start();
        try {
            Bounded.awaitUnder(unitLock, "the waiter never went to sleep", () -> s.sleeps() >= 1);
            Thread.sleep(200);
            assertEquals(1, s.sleeps(), "a sleep with no time-out ended on its own (no wakeup was sent)");
            hw.completeAll();
            Thread.sleep(100);
            assertTrue(w.isAlive(), "with no time-out only a wakeup may end the sleep; the waiter returned without one");
            assertEquals(0, s.sleepTimeouts());
        } finally {
            hw.completeAll();
            s.wakeupWaiters();
        }
        assertTrue(Bounded.joined(w), "the wakeup did not end the sleep");
        w.assertNoFailure();
        assertEquals(0, s.waiters(), DEREGISTERED);
    }

    @Test
    void anInterruptDoesNotEndTheWaitAndIsRestoredOnReturn() throws Exception {
        // msleep without PCATCH: a signal does not end the wait. Java's equivalent is the
        // interrupt: the waiter goes back to sleep, and returns with its interrupt status set.
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).sleepTimeout(1, TimeUnit.HOURS));
        Waiter w = new Waiter(s, false);
        w.start();
        try {
            Bounded.awaitUnder(unitLock, "the waiter never went to sleep", () -> s.sleeps() == 1);
            w.interrupt();
            Bounded.awaitUnder(unitLock, "after the interrupt the waiter did not go back to sleep:"
                    + " an interrupt must not end the wait", () -> s.sleeps() == 2);
            assertTrue(w.isAlive());
            assertEquals(1, s.waiters());
        } finally {
            hw.completeAll();
            s.wakeupWaiters();
        }
        assertTrue(Bounded.joined(w), "the wakeup did not end the wait");
        w.assertNoFailure();
        assertTrue(w.interruptedOnReturn, "waitForSeq swallowed the interrupt: the interrupt status must be"
                + " set again when it returns");
        assertEquals(0, s.waiters(), DEREGISTERED);
    }

    @Test
    void wakeupTakesTheUnitLockOnlyWhenAWaiterIsRegistered() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        s.wakeupWaiters();
        assertEquals(0, unitLock.lockCalls.get(), "wakeupWaiters took the unit lock with no waiter registered:"
                + " the QI task would contend for the unit lock on every pass");
        unitLock.lock();
        s.registerWaiter();
        unitLock.unlock();
        int before = unitLock.lockCalls.get();
        s.wakeupWaiters();
        assertEquals(before + 1, unitLock.lockCalls.get(), "with a waiter registered the wakeup takes the unit lock");
        assertEquals(1, unitLock.signals.get(), "with a waiter registered the wakeup signals the condition");
    }

    /**
     * A synchronous waiter on a thread of its own, as {@code iommu_qi_invalidate_sync}:
     * under the unit lock, emit a wait descriptor, register, advance IQT, wait.
     */
    private final class Waiter extends Thread {
        final QiSequencer s;
        final boolean nowait;
        final CountDownLatch registered = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean interruptedOnReturn;

        Waiter(QiSequencer s, boolean nowait) {
            super("waiter");
            this.s = s;
            this.nowait = nowait;
            setDaemon(true); // a broken wait must not keep the test JVM alive
        }

        @Override
        public void run() {
            unitLock.lock();
            try {
                long g = s.emitWaitSeq(true);
                s.registerWaiter(); // before the tail advance
                hw.advanceTail();
                registered.countDown();
                s.waitForSeq(g, nowait);
                interruptedOnReturn = Thread.currentThread().isInterrupted();
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                unitLock.unlock();
            }
        }

        void assertNoFailure() {
            if (failure.get() != null) {
                throw new AssertionError("the waiter failed", failure.get());
            }
        }
    }

    static io.github.dmarflush.flushlist.Reclaimer<io.github.dmarflush.flushlist.FlushEntry> noReclaim() {
        return new io.github.dmarflush.flushlist.Reclaimer<>() {
            @Override
            public void releaseItem(io.github.dmarflush.flushlist.FlushEntry entry) {
            }

            @Override
            public void retireElement(io.github.dmarflush.flushlist.FlushEntry element) {
            }
        };
    }
}
