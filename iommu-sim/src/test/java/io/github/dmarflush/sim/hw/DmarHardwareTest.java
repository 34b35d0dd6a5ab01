package io.github.dmarflush.sim.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class DmarHardwareTest {

    private static final int RID = 0x0300;
    private final PhysicalMemory memory = new PhysicalMemory(1 << 20);
    private final DmarHardware hw = new DmarHardware("dmar-test", memory, 64, 0);

    @AfterEach
    void stop() {
        hw.close();
    }

    private static void await(java.util.function.BooleanSupplier cond) throws InterruptedException {
        while (!cond.getAsBoolean()) {
            Thread.sleep(1);
        }
    }

    @Test
    void engineTimingRefusesLatenciesTheEngineCouldNotHonour() {
        // Long.MAX_VALUE jitter used to overflow the engine's random bound and kill its thread.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EngineTiming(0, 0, 0, 0, Long.MAX_VALUE, 1));
        assertTrue(e.getMessage().contains("at most 1000000000 ns"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EngineTiming.uniform(EngineTiming.MAX_NANOS + 1));
        assertEquals(EngineTiming.MAX_NANOS, new EngineTiming(0, 0, 0, 0, EngineTiming.MAX_NANOS, 1).jitterNanos());
    }

    @Test
    void waitDescriptorDoesTheStatusWriteSetsIwcAndInterruptsOnlyOnZeroToOne() throws Exception {
        QueueMemory q = QueueMemory.allocate(memory, 0);
        hw.writeIqa(q);
        hw.enableQi();
        hw.writeIectl(0);
        AtomicInteger status = new AtomicInteger();
        AtomicInteger interrupts = new AtomicInteger();
        hw.mapStatusWord(0x1000, status::set); // a mapped word, not memory
        hw.setInterruptHandler(interrupts::incrementAndGet);
        long wait = Descriptors.WAIT | Descriptors.WAIT_IF | Descriptors.WAIT_SW;
        q.write(0, wait | (7L << 32), 0x1000);
        hw.writeIqt(16);
        await(() -> hw.readIqh() == 16);
        assertEquals(7, status.get());
        assertEquals(DmarHardware.ICS_IWC, hw.readIcs());
        assertEquals(1, interrupts.get());
        // IWC still set: the next completion raises no interrupt.
        q.write(16, wait | (8L << 32), 0x1000);
        hw.writeIqt(32);
        await(() -> hw.readIqh() == 32);
        assertEquals(8, status.get());
        assertEquals(1, interrupts.get());
        // Clear (write 1), and the next one interrupts again.
        hw.writeIcs(DmarHardware.ICS_IWC);
        assertEquals(0, hw.readIcs());
        q.write(32, wait | (9L << 32), 0x1000);
        hw.writeIqt(48);
        await(() -> hw.readIqh() == 48);
        assertEquals(2, interrupts.get());
    }

    @Test
    void maskedInterruptIsPendingAndDeliveredOnUnmask() throws Exception {
        QueueMemory q = QueueMemory.allocate(memory, 0);
        hw.writeIqa(q);
        hw.enableQi();
        AtomicInteger interrupts = new AtomicInteger();
        hw.setInterruptHandler(interrupts::incrementAndGet);
        q.write(0, Descriptors.WAIT | Descriptors.WAIT_IF, 0);
        hw.writeIqt(16);
        await(() -> hw.readIqh() == 16);
        assertEquals(0, interrupts.get(), "IECTL.IM is set at reset");
        assertTrue((hw.readIectl() & DmarHardware.IECTL_IP) != 0);
        hw.writeIectl(0);
        assertEquals(1, interrupts.get());
        assertEquals(0, hw.readIectl() & DmarHardware.IECTL_IP);
    }

    @Test
    void badTailIsAQueueErrorAndIsIgnored() {
        hw.writeIqa(QueueMemory.allocate(memory, 0));
        hw.enableQi();
        hw.writeIqt(8); // not 16-byte aligned
        assertEquals(DmarHardware.FSTS_IQE, hw.readFsts() & DmarHardware.FSTS_IQE);
        assertEquals(0, hw.readIqt());
        hw.writeIqt(4096); // at the queue size
        assertEquals(0, hw.readIqt());
    }

    @Test
    void dmaToAnUnmappedIovaFaults() {
        PageTable pt = new PageTable(4);
        hw.setContext(RID, 1, pt);
        DmaFault f = hw.dmaWrite(RID, 0x5000, new byte[16], 0, 16);
        assertEquals(DmaFault.Reason.NOT_PRESENT, f.reason());
        assertEquals(0x5000, f.iova());
        assertEquals(DmaFault.Reason.NO_CONTEXT, hw.dmaWrite(0x0400, 0x5000, new byte[1], 0, 1).reason());
        assertEquals(2, hw.faults());
        // Recorded in the fault-recording registers, FSTS.PPF set until software clears them.
        assertEquals(f, hw.readFaultRecord(0));
        assertTrue((hw.readFsts() & DmarHardware.FSTS_PPF) != 0);
        hw.clearFaultRecord(0);
        hw.clearFaultRecord(1);
        assertEquals(0, hw.readFsts() & DmarHardware.FSTS_PPF);
    }

    @Test
    void dmaCheckerCatchesAReuseBeforeTheInvalidationCompleted() throws Exception {
        PageTable pt = new PageTable(4);
        hw.setContext(RID, 1, pt);
        long p1 = memory.allocate(4096);
        long p2 = memory.allocate(4096);
        byte[] data = {1, 2, 3, 4};
        pt.map(0x10000, p1, 4096);
        assertNull(hw.dmaWrite(RID, 0x10000, data, 0, 4)); // fills the IOTLB
        assertEquals(3, memory.read(p1 + 2));
        // Unmap without waiting for an IOTLB invalidation, and reuse the IOVA at once.
        pt.unmap(0x10000, 4096);
        DmaFault afterUnmap = hw.dmaWrite(RID, 0x10000, data, 0, 4);
        assertEquals(DmaFault.Reason.STALE_UNMAPPED, afterUnmap.reason());
        pt.map(0x10000, p2, 4096);
        DmaFault reused = hw.dmaWrite(RID, 0x10000, data, 0, 4);
        assertEquals(DmaFault.Reason.STALE_REMAPPED, reused.reason());
        assertNotEquals(3, memory.read(p2 + 2), "the faulting DMA wrote nothing");
        // After a page-selective invalidation the same access is clean.
        QueueMemory q = QueueMemory.allocate(memory, 0);
        hw.writeIqa(q);
        hw.enableQi();
        long[] inv = Descriptors.iotlbPage(1, 0x10000, 0);
        q.write(0, inv[0], inv[1]);
        hw.writeIqt(16);
        await(() -> hw.readIqh() == 16);
        assertNull(hw.dmaWrite(RID, 0x10000, data, 0, 4));
        assertEquals(3, memory.read(p2 + 2));
    }
}
