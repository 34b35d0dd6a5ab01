package io.github.dmarflush.sim.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.pgtbl.PageTable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class IotlbAndContextTest {

    @Test
    void superpageEntryIsDroppedByAnOverlappingPageInvalidationOnlyInItsDomain() {
        Iotlb tlb = new Iotlb(64);
        tlb.fill(1, 0x20_0000 + 0x5000, 0x4000_0000L, 21);
        tlb.fill(2, 0x20_0000, 0x6000_0000L, 21);
        assertEquals(0x4000_0000L + 0x7123, tlb.lookup(1, 0x20_7123).translate(0x20_7123));
        tlb.invalidatePages(1, 0x3F_F000, 0); // the last 4 KiB of the 2 MiB page
        assertNull(tlb.lookup(1, 0x20_0000));
        assertNotNull(tlb.lookup(2, 0x20_0000), "tagged by domain");
        tlb.invalidateDomain(2);
        assertNull(tlb.lookup(2, 0x20_0000));
    }

    @Test
    void descriptorsCarryTheirFieldsAndRejectReservedBits() {
        assertEquals(0, Descriptors.reservedBits(Descriptors.contextDeviceLo(3, 0x0300, 2), 0));
        assertEquals(0, Descriptors.reservedBits(Descriptors.iotlbDomainLo(7), 0));
        assertEquals(0, Descriptors.reservedBits(Descriptors.iecIndexLo(12, 3), 0));
        assertEquals(0, Descriptors.reservedBits(Descriptors.waitLo(-1, true, true, true), Descriptors.waitHi(0x1000)));
        assertTrue(Descriptors.reservedBits(Descriptors.iotlbPageLo(1) | (1L << 40), 0) != 0, "IOTLB lo 63:32");
        assertTrue(Descriptors.reservedBits(Descriptors.iotlbPageLo(1), 0x1000 | (1 << 7)) != 0, "IOTLB hi 11:7");
        assertTrue(Descriptors.reservedBits(Descriptors.iotlbPageLo(1), 0x1000 | 10) != 0, "AM above MAMV");
        assertTrue(Descriptors.reservedBits(Descriptors.waitLo(1, false, true, false), 0x1002) != 0, "status address 1:0");
        assertTrue(Descriptors.reservedBits(Descriptors.contextGlobalLo(), 1) != 0, "context hi reserved");
        assertTrue(Descriptors.reservedBits(0x3, 0) != 0, "device-TLB type unsupported");
        assertTrue(Descriptors.reservedBits(Descriptors.IOTLB_INV, 0) != 0, "granularity 0");
        assertEquals(0xFFFF_FFFF, Descriptors.waitStatusData(Descriptors.waitLo(-1, false, true, false)));
    }

    @Test
    void contextCacheKeepsAnEntryUntilInvalidated() throws Exception {
        PhysicalMemory memory = new PhysicalMemory(1 << 20);
        DmarHardware hw = new DmarHardware("dmar-ctx", memory, 64, 0);
        try {
            PageTable pt = new PageTable(4);
            long pa = memory.allocate(4096);
            pt.map(0x1000, pa, 4096);
            hw.setContext(0x0300, 1, pt);
            assertNull(hw.dmaWrite(0x0300, 0x1000, new byte[4], 0, 4));
            assertTrue(hw.contextCached(0x0300));
            hw.clearContext(0x0300);
            assertNull(hw.dmaWrite(0x0300, 0x1000, new byte[4], 0, 4), "the cached context entry still works");
            QueueMemory q = QueueMemory.allocate(memory, 0);
            hw.writeIqa(q);
            hw.enableQi();
            q.write(0, Descriptors.contextDeviceLo(1, 0x0300, 0), 0);
            hw.writeIqt(16);
            while (hw.readIqh() != 16) {
                Thread.onSpinWait();
            }
            assertEquals(DmaFault.Reason.NO_CONTEXT, hw.dmaWrite(0x0300, 0x1000, new byte[4], 0, 4).reason());
        } finally {
            hw.close();
        }
    }
}
