package io.github.dmarflush.sim.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class DmarUnitTest {

    @ParameterizedTest
    @EnumSource(FlushStrategy.class)
    void unloadQueuesInvalidationAndTheTaskFreesTheSpaceAfterCompletion(FlushStrategy s) throws Exception {
        try (SimMachine m = new SimMachine(MachineConfig.defaults(s))) {
            BusDma busdma = m.busdma();
            long pa = m.memory().allocate(3 * 4096);
            BusDmaMap map = busdma.createMap();
            long iova = busdma.load(map, pa + 100, 2 * 4096); // touches 3 pages
            assertEquals(100, iova & 4095);
            assertNull(m.hardware().dmaWrite(SimMachine.NIC_RID, iova, new byte[2 * 4096], 0, 2 * 4096));
            assertEquals(1, m.domain().allocatedRanges());
            busdma.unload(map);
            // 3 pages at a 1-page aligned base: descriptors for 1 + 2 pages, or 1+1+1.
            assertTrue(m.unit().iotlbDescriptorsEmitted() >= 2);
            m.unit().quiesce();
            assertEquals(0, m.domain().allocatedRanges(), "the QI task freed the IOVA space");
            assertTrue(m.unit().flushList().isEmpty());
            assertEquals(0, m.hardware().faults());
            // Wait sequences: (0, 1..3) at attach, (0, 4) for the unload, (0, 5) for the quiesce.
            assertEquals(GenSeq.of(0, 6), GenSeq.of(m.unit().sequencer().gen(), m.unit().sequencer().nextSeq()));
            assertTrue(m.hardware().interrupts() >= 1);
        }
    }

    @ParameterizedTest
    @EnumSource(FlushStrategy.class)
    void smallRingWrapsAndFillsWithoutLosingEntries(FlushStrategy s) throws Exception {
        MachineConfig c = MachineConfig.defaults(s).withQueue(0, 1);
        try (SimMachine m = new SimMachine(c)) {
            BusDma busdma = m.busdma();
            long pa = m.memory().allocate(4096);
            BusDmaMap map = busdma.createMap();
            for (int i = 0; i < 5000; i++) { // 10,000 descriptors through a 256-slot ring
                long iova = busdma.load(map, pa, 64);
                assertNull(m.hardware().dmaWrite(SimMachine.NIC_RID, iova, new byte[64], 0, 64));
                busdma.unload(map);
            }
            m.unit().quiesce();
            assertEquals(0, m.domain().allocatedRanges());
            assertEquals(3 + 5000 + 1, m.hardware().waitDescriptors(),
                    "three at attach, one per unload and one for the quiesce");
            assertTrue(m.hardware().readIqh() < 4096);
        }
    }
}
