package io.github.dmarflush.sim.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.hw.Descriptors;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The invalidation queue as a ring of 256 slots (IQA.QS = 0): wraparound of IQH and IQT, the
 * slot that stays free, and the producer that waits on a full ring.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class QueueRingTest {

    private static final int SIZE = 0x1000;

    private final PhysicalMemory memory = new PhysicalMemory(1 << 20);
    private final DmarHardware hw = new DmarHardware("dmar-ring", memory, 64, EngineTiming.NONE);
    private final DmarUnit unit = new DmarUnit(hw, new DmarUnit.Options(FlushStrategy.FLUSHLIST,
            InvalidationMode.DEFERRED, 0, 10_000, UnitHooks.LIBRARY));
    /** How many IQH and IQT reads the test checked. */
    private long reads;

    @AfterEach
    void stop() {
        unit.close();
    }

    /** An interrupt-entry-cache invalidation carrying a marker in its index field: no side effect. */
    private static long[] marker(int n) {
        return new long[] {Descriptors.iecIndexLo(n & 0xFFFF, 0), 0};
    }

    /** Every register read is checked at once: below the queue size and 16-byte aligned. */
    private long check(String reg, long v) {
        reads++;
        if (v < 0 || v >= SIZE || (v & 15) != 0) {
            throw new AssertionError(reg + " read 0x" + Long.toHexString(v) + " (queue size 0x1000)");
        }
        return v;
    }

    private long iqh() {
        return check("IQH", hw.readIqh());
    }

    private long iqt() {
        return check("IQT", hw.readIqt());
    }

    /**
     * Spins until the hardware has executed everything published, or fails after ten seconds
     * (a busy loop ignores JUnit's timeout, so a broken ring must fail here, not hang).
     */
    private void waitIdle() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (iqh() != iqt()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the queue did not drain: IQH 0x" + Long.toHexString(hw.readIqh())
                        + ", IQT 0x" + Long.toHexString(hw.readIqt()) + ", FSTS 0x"
                        + Integer.toHexString(hw.readFsts()));
            }
            Thread.onSpinWait();
        }
    }

    /** One descriptor at a time until IQH (and IQT) equal {@code target}. */
    private void advanceTo(long target) {
        waitIdle();
        int n = 0;
        while (iqt() != target) {
            if (n > 4 * SIZE / 16) {
                throw new AssertionError("IQT never reached 0x" + Long.toHexString(target));
            }
            long[] d = marker(n++);
            unit.submit(d[0], d[1]);
            waitIdle();
        }
    }

    private void assertNoRegisterReadTheQueueSize() {
        assertTrue(reads > 0, "registers were read");
    }

    @Test
    void threeHundredRoundsRunIqhThroughFf0AndBackToZero() {
        advanceTo(0);
        List<Long> heads = new ArrayList<>();
        for (int round = 0; round < 300; round++) {
            long[] d = marker(round);
            unit.submit(d[0], d[1]);
            waitIdle();
            heads.add(iqh());
        }
        for (int round = 0; round < 300; round++) {
            assertEquals(((round + 1) * 16L) % SIZE, heads.get(round), "IQH after round " + round);
        }
        int ff0 = heads.indexOf(0xFF0L);
        assertTrue(ff0 >= 0, "IQH reached 0xFF0");
        assertEquals(0L, heads.get(ff0 + 1), "and wrapped to 0x000");
        assertNoRegisterReadTheQueueSize();
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_IQE);
    }

    @Test
    void twoDescriptorSubmissionsWrapTheTailToZeroAndTheNextUsesSlotsZeroAndOne() {
        advanceTo(0);
        for (int i = 0; i < 128; i++) {
            long[] a = marker(2 * i);
            long[] b = marker(2 * i + 1);
            unit.submit(a[0], a[1], b[0], b[1]);
        }
        assertEquals(0, iqt(), "256 descriptors from slot 0 leave IQT at 0x000");
        waitIdle();
        long[] a = marker(1000);
        long[] b = marker(1001);
        unit.submit(a[0], a[1], b[0], b[1]);
        assertEquals(a[0], unit.queueMemory().lo(0), "the 129th submission writes slot 0");
        assertEquals(b[0], unit.queueMemory().lo(16), "and slot 1");
        assertEquals(0x20, iqt());
        waitIdle();
        assertNoRegisterReadTheQueueSize();
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_IQE);
    }

    @Test
    void tailAtOrBeyondTheQueueSizeOrMisalignedIsAQueueError() {
        long before = hw.readIqt();
        for (long bad : new long[] {SIZE, SIZE + 16, 8, 0x7F4, -16}) {
            hw.writeFsts(DmarHardware.FSTS_IQE);
            hw.writeIqt(bad);
            assertEquals(DmarHardware.FSTS_IQE, hw.readFsts() & DmarHardware.FSTS_IQE, "IQT 0x" + Long.toHexString(bad));
            assertEquals(before, hw.readIqt(), "IQT keeps its value after 0x" + Long.toHexString(bad));
        }
        hw.writeFsts(DmarHardware.FSTS_IQE);
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_IQE, "FSTS.IQE is write-1-to-clear");
    }

    @ParameterizedTest(name = "IQH at 0x{0}")
    @ValueSource(strings = {"000", "ff0"})
    void fullRingProducerWaitsWithoutOverwritingAndGoesOnWhenOneSlotFrees(String start) throws Exception {
        long h0 = Long.parseLong(start, 16);
        advanceTo(h0);
        hw.haltEngine();
        for (int i = 0; i < 255; i++) {
            long[] d = marker(i);
            unit.submit(d[0], d[1]);
        }
        long tailFull = (h0 + 255 * 16) % SIZE;
        assertEquals(tailFull, iqt(), "255 descriptors queued");
        assertEquals(h0, iqh());
        long atHead = unit.queueMemory().lo((int) h0);
        long fullBefore = unit.queueFull();

        long[] last = marker(255);
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> unit.submit(last[0], last[1]));
        // Wait until the producer has met the full ring (its queue-full event), not a fixed
        // 200 ms: on a loaded machine the producer thread may not have run by then, and the
        // isDone() check below would pass without the producer having tried at all.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (unit.queueFull() == fullBefore && !producer.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Thread.sleep(50); // a producer that wrongly overwrites the head slot has done it by now
        assertFalse(producer.isDone(), "the 256th submission waits on a full ring");
        assertEquals(atHead, unit.queueMemory().lo((int) h0), "the slot at IQH is not overwritten");
        assertEquals(tailFull, iqt(), "IQT does not move onto IQH (that would read as an empty queue)");
        assertNotEquals(iqh(), iqt());
        assertTrue(unit.queueFull() > fullBefore, "a queue-full event was counted");

        hw.stepEngine(1); // the hardware consumes one descriptor
        producer.get(10, TimeUnit.SECONDS);
        assertEquals((h0 + 16) % SIZE, iqh());
        assertEquals(h0, iqt(), "the 256th went into the slot kept free");
        assertEquals(last[0], unit.queueMemory().lo((int) tailFull));
        hw.resumeEngine();
        waitIdle();
        assertNoRegisterReadTheQueueSize();
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_IQE);
    }

    @Test
    void reservedBitStopsIqhAtTheBadDescriptorUntilIqeIsCleared() {
        waitIdle();
        long h = iqh();
        long[] good = marker(1);
        long badLo = Descriptors.waitLo(0, false, false, false) | (1L << 12); // reserved bit 12
        unit.submit(good[0], good[1], badLo, 0, good[0], good[1]);
        long bad = (h + 16) % SIZE;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((hw.readFsts() & DmarHardware.FSTS_IQE) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(DmarHardware.FSTS_IQE, hw.readFsts() & DmarHardware.FSTS_IQE);
        assertEquals(bad, hw.readIqh(), "IQH stops at the bad descriptor");
        // Software fixes the descriptor and clears IQE; the engine goes on.
        unit.queueMemory().write((int) bad, Descriptors.waitLo(0, false, false, false), 0);
        hw.writeFsts(DmarHardware.FSTS_IQE);
        waitIdle();
        assertEquals((h + 48) % SIZE, hw.readIqh());
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_IQE);
    }
}
