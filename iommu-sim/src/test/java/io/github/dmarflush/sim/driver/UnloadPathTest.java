package io.github.dmarflush.sim.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.gas.GasConstraints;
import io.github.dmarflush.sim.hw.Descriptors;
import io.github.dmarflush.sim.hw.DmarHardware;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The driver's unload path: empty entries, the top of the address space, batch coalescing, strict mode. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UnloadPathTest {

    private static final CallStack STACK = CallStack.of("iommu_qi_invalidate_locked", "test");

    @Test
    void unmappingZeroBytesQueuesNoDescriptorAndConsumesNoSequenceNumber() {
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.FLUSHLIST))) {
            DmarUnit unit = m.unit();
            DmarDomain d = m.domain();
            IommuMapEntry empty = d.allocateAt(0x5000, 0);
            assertNotNull(empty);
            int seq = unit.sequencer().nextSeq();
            long emitted = unit.descriptorsEmitted();
            long tail = m.hardware().readIqt();
            long freed = d.entriesFreed();
            d.unload(List.of(empty), true, STACK);
            assertEquals(seq, unit.sequencer().nextSeq(), "no sequence number consumed");
            assertEquals(emitted, unit.descriptorsEmitted(), "no descriptor written");
            assertEquals(tail, m.hardware().readIqt(), "IQT did not move");
            assertEquals(freed + 1, d.entriesFreed(), "the entry was freed at once");
            assertFalse(empty.isOnList());
            assertEquals(1, d.emptyUnloads());
            assertTrue(unit.flushList().isEmpty());
            // And directly at the unit: nothing queued, reported as not queued.
            unit.unloadLock().lock();
            try {
                assertFalse(unit.invalidateLocked(d.allocateAt(0x6000, 0), true, STACK));
            } finally {
                unit.unloadLock().unlock();
            }
            assertEquals(seq, unit.sequencer().nextSeq());
        }
    }

    @Test
    void onePageAtTheTopOfA48BitDomainHasAddressMaskZeroAndAValidAddress() {
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.FLUSHLIST))) {
            DmarUnit unit = m.unit();
            DmarDomain d = m.domain();
            assertEquals(48, d.pageTable().addressWidth());
            long top = (1L << 48) - 4096;
            IommuMapEntry e = d.allocateAt(top, 4096);
            assertNotNull(e, "the last page of the domain can be allocated");
            long pa = m.memory().allocate(4096);
            d.pageTable().map(top, pa, 4096);
            assertNull(m.hardware().dmaWrite(SimMachine.NIC_RID, top + 8, new byte[8], 0, 8));
            assertNotNull(m.hardware().iotlb().lookup(d.domainId(), top), "translation cached");
            int slot = unit.softwareTail();
            d.unload(List.of(e), true, STACK);
            long lo = unit.queueMemory().lo(slot);
            long hi = unit.queueMemory().hi(slot);
            assertEquals(Descriptors.iotlbPageLo(d.domainId()), lo);
            assertEquals(0, hi & Descriptors.IOTLB_AM_MASK, "address mask 0");
            assertEquals(top, hi & Descriptors.IOTLB_ADDR_MASK, "address of the last page");
            assertEquals(0, Descriptors.reservedBits(lo, hi), "a valid descriptor");
            unit.quiesce();
            assertEquals(0, m.hardware().readFsts() & DmarHardware.FSTS_IQE);
            assertNull(m.hardware().iotlb().lookup(d.domainId(), top), "the invalidation dropped it");
            assertEquals(0, d.allocatedRanges());
        }
    }

    @Test
    void batchGetsAWaitDescriptorEveryNthEntryAndOnTheLastNonEmptyOne() {
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withQueue(3, 100);
        try (SimMachine m = new SimMachine(c)) {
            DmarUnit unit = m.unit();
            DmarDomain d = m.domain();
            List<IommuMapEntry> batch = new ArrayList<>();
            for (int i = 0; i < 250; i++) {
                IommuMapEntry e = d.allocate(4096, GasConstraints.NONE);
                d.pageTable().map(e.start(), 0x10000, 4096);
                batch.add(e);
            }
            batch.add(d.allocateAt(0x7000_0000L, 0)); // an empty entry last
            unit.quiesce();
            long waits0 = m.hardware().waitDescriptors();
            long irq0 = m.hardware().iwcSets();
            int seq0 = unit.sequencer().nextSeq();
            d.unload(batch, true, STACK);
            assertEquals(seq0 + 250, unit.sequencer().nextSeq(), "every non-empty entry has a sequence number");
            unit.quiesce();
            // batch_no 0, 100, 200 (batch_no % 100 == 0) and the last non-empty entry (249),
            // then one for the quiesce.
            assertEquals(4 + 1, m.hardware().waitDescriptors() - waits0);
            assertTrue(m.hardware().iwcSets() - irq0 >= 1);
            assertEquals(0, d.allocatedRanges(), "all 250 released: the last one's wait covered them");
        }
    }

    @Test
    void strictUnloadFreesTheRangeBeforeReturning() {
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withMode(InvalidationMode.STRICT);
        try (SimMachine m = new SimMachine(c)) {
            DmarDomain d = m.domain();
            IommuMapEntry e = d.allocate(8192, GasConstraints.NONE);
            d.pageTable().map(e.start(), 0x20000, 8192);
            long waits0 = m.hardware().waitDescriptors();
            d.unload(List.of(e), true, STACK);
            assertEquals(0, d.allocatedRanges(), "freed synchronously, no quiesce needed");
            assertEquals(1, m.hardware().waitDescriptors() - waits0);
            assertTrue(m.unit().flushList().isEmpty());
            assertEquals(0, m.unit().sequencer().sleepTimeouts());
        }
    }
}
