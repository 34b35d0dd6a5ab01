package io.github.dmarflush.flushlist.qi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class QiSequencerTest {

    private final ReentrantLock unitLock = new ReentrantLock();
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
                new FakeQiHardware.WaitDescriptor(2, true, true)), hw.ring);
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
        assertEquals(GenSeq.of(8, 1), emit(s, true));
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
        long first = emit(s, false); // wraps inside this call; writes no descriptor of its own
        engine[0].join(TimeUnit.SECONDS.toMillis(60));
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
        unitLock.lock();
        try {
            hw.autoComplete = true; // the wrap's spin needs the hardware to run
            first = s.emitWaitSeq(true); // wraps inside this call
            hw.autoComplete = false;
            second = s.emitWaitSeq(true); // queued, tail not advanced: not processed
        } finally {
            unitLock.unlock();
        }
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
        unitLock.lock();
        try {
            long g = s.emitWaitSeq(true);
            hw.advanceTail();
            var e = assertThrows(IllegalStateException.class, () -> s.waitForSeq(g, true));
            assertTrue(e.getMessage().contains("without registerWaiter()"), e.getMessage());
        } finally {
            unitLock.unlock();
        }
    }

    @Test
    void waitForASequenceNeverHandedOutIsRejectedNotAHang() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw).startAt(4, 7));
        hw.autoComplete = true;
        // Preemptive: without the check this wait spins forever with the lock held.
        var e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
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
                assertEquals(0, s.waiters());
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
        assertThrows(NullPointerException.class, () -> QiSequencer.builder(null, hw));
        assertEquals("queue", assertThrows(NullPointerException.class,
                () -> QiSequencer.builder(unitLock, null)).getMessage());
        assertEquals("unit", assertThrows(NullPointerException.class,
                () -> QiSequencer.builder(unitLock, hw).sleepTimeout(1, null)).getMessage());
    }

    @Test
    void spinningWaiterReturnsOnceProcessed() {
        QiSequencer s = sequencer(QiSequencer.builder(unitLock, hw));
        hw.autoComplete = true;
        unitLock.lock();
        try {
            long g = s.quiesce(true);
            assertTrue(s.processed(g));
            assertEquals(0, s.waiters());
            assertEquals(0, s.sleeps());
        } finally {
            unitLock.unlock();
        }
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
        waiter.start();
        // Wait until the waiter sleeps (it releases the lock and stays registered).
        while (true) {
            unitLock.lock();
            try {
                if (s.sleeps() == 1) {
                    break;
                }
            } finally {
                unitLock.unlock();
            }
            Thread.sleep(1);
        }
        assertEquals(1, s.waiters());
        hw.completeAll(); // the waiter's tail advance happened before it slept (lock order)
        var task = new QiTask(new io.github.dmarflush.flushlist.ZombieHeadFlushList<>(
                new io.github.dmarflush.flushlist.FlushEntry(), noReclaim()), s, hw);
        task.run();
        waiter.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(waiter.isAlive(), "the QI task's wakeup must end the sleep");
        assertTrue(s.processed(waited[0]));
        assertEquals(0, s.waiters());
        assertEquals(0, s.sleepTimeouts());
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
