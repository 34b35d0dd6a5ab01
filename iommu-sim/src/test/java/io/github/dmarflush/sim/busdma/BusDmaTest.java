package io.github.dmarflush.sim.busdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.gas.GasConstraints;
import io.github.dmarflush.sim.hw.DmaFault;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BusDmaTest {

    @Test
    void scatteredPagesAreMappedAtConsecutiveIovasAndADeviceWriteLandsInEachPage() {
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.FLUSHLIST))) {
            BusDma busdma = m.busdma();
            long[] pages = new long[3];
            for (int i = 0; i < pages.length; i++) {
                m.memory().allocate(4096); // a hole, so the pages are not contiguous
                pages[i] = m.memory().allocate(4096);
            }
            BusDmaMap map = busdma.createMap(BusDmaTag.unconstrained(3 * 4096, 1, 3 * 4096));
            assertEquals(1, busdma.loadPages(map, pages, 100, 2 * 4096));
            long iova = map.segmentAddress(0);
            assertEquals(100, iova & 4095);
            assertEquals(2 * 4096, map.segmentLength(0));
            byte[] data = new byte[2 * 4096];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i / 4096 + 1);
            }
            assertNull(m.hardware().dmaWrite(busdma.requestId(), iova, data, 0, data.length));
            assertEquals(1, m.memory().read(pages[0] + 100));
            assertEquals(1, m.memory().read(pages[0] + 4095));
            assertEquals(1, m.memory().read(pages[1] + 99), "byte 4095 of the buffer is in the second page");
            assertEquals(2, m.memory().read(pages[1] + 100));
            assertEquals(2, m.memory().read(pages[2] + 99));
            busdma.unload(map);
            DmaFault after = m.hardware().dmaWrite(busdma.requestId(), iova, data, 0, 1);
            assertTrue(after != null, "the unloaded range no longer translates");
            m.unit().quiesce();
            assertEquals(0, m.domain().allocatedRanges());
            busdma.destroyMap(map);
            assertThrows(IllegalStateException.class, () -> busdma.destroyMap(map));
        }
    }

    @Test
    void segmentLimitsTagConstraintsAndMisuse() {
        try (SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.LOCKED))) {
            BusDma busdma = m.busdma();
            long pa = m.memory().allocate(64 * 1024);
            BusDmaTag tag = new BusDmaTag(GasConstraints.below(0xFFFF_FFFFL), 64 * 1024, 4, 16 * 1024);
            BusDmaMap map = busdma.createMap(tag);
            busdma.load(map, pa, 64 * 1024);
            assertEquals(4, map.segments());
            for (int i = 0; i < 4; i++) {
                assertTrue(map.segmentAddress(i) + map.segmentLength(i) - 1 <= 0xFFFF_FFFFL, "below lowaddr");
            }
            assertEquals(4, map.entries().size());
            assertThrows(IllegalStateException.class, () -> busdma.load(map, pa, 4096), "already loaded");
            assertThrows(IllegalStateException.class, () -> busdma.destroyMap(map), "destroy while loaded");
            busdma.unload(map);
            assertThrows(IllegalStateException.class, () -> busdma.unload(map), "not loaded");
            BusDmaMap small = busdma.createMap(new BusDmaTag(GasConstraints.NONE, 64 * 1024, 2, 4096));
            var e = assertThrows(IllegalArgumentException.class, () -> busdma.load(small, pa, 3 * 4096));
            assertEquals("buffer needs more than 2 segments (EFBIG)", e.getMessage());
            assertTrue(!small.isLoaded());
            m.unit().quiesce();
            assertEquals(0, m.domain().allocatedRanges(), "the failed load gave its ranges back");
            BusDmaMap a = busdma.createMap();
            BusDmaMap b = busdma.createMap();
            busdma.load(a, pa, 1500);
            busdma.load(b, pa + 8192, 1500);
            busdma.unloadBatch(List.of(a, b));
            assertTrue(!a.isLoaded() && !b.isLoaded());
            m.unit().quiesce();
            assertEquals(0, m.domain().allocatedRanges());
        }
    }
}
