package io.github.dmarflush.sim.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The virtual-time engine's timing, worked out by hand. */
class EventEngineTest {

    /**
     * Three IOTLB invalidations of 1000 ns published together at time 0, then a fourth at 200.
     * With no occupancy they overlap: the first three complete at 1000 and the fourth at 1200.
     * With 300 ns of occupancy they start at 0, 300, 600 and 900: complete at 1000, 1300, 1600,
     * 1900. With 1000 (one at a time): 1000, 2000, 3000, 4000.
     */
    @ParameterizedTest
    @CsvSource({"0, 1000, 1000, 1000, 1200", "300, 1000, 1300, 1600, 1900", "1000, 1000, 2000, 3000, 4000"})
    void descriptorsStartWhenPublishedAndNoSoonerThanTheOccupancyAllows(long occupancy, long c1, long c2, long c3,
            long c4) {
        EventLoop loop = new EventLoop();
        PhysicalMemory memory = new PhysicalMemory(1 << 20);
        DmarHardware hw = new DmarHardware("dmar-test", memory, 64, new EngineTiming(1000, 0, 0, 0, 0, 0),
                EventEngine.on(loop, LongUnaryOperator.identity(), occupancy));
        ((EventEngine) hw.engineDriver()).setImmediate(false);
        QueueMemory q = QueueMemory.allocate(memory, 0);
        hw.writeIqa(q);
        hw.enableQi();
        for (int i = 0; i < 4; i++) {
            q.write(16 * i, Descriptors.iotlbPageLo(1), Descriptors.iotlbPageHi(4096L * i, 0));
        }
        hw.writeIqt(48);
        loop.after(200, () -> hw.writeIqt(64));
        long[] expected = {c1, c2, c3, c4};
        long done = 0;
        for (long t = 0; t <= 5000; t++) {
            loop.runUntil(t);
            while (done < hw.iotlbDescriptors()) {
                assertEquals(expected[(int) done], t, "descriptor " + done);
                done++;
            }
        }
        assertEquals(4, done);
    }
}
