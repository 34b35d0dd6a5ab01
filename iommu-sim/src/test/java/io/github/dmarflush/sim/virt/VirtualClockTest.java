package io.github.dmarflush.sim.virt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VirtualClockTest {

    /** FreeBSD's lock_roundup_2 is the smallest power of two strictly above the CPU count. */
    @ParameterizedTest
    @CsvSource({"1, 512", "2, 1024", "3, 1024", "4, 2048", "7, 2048", "8, 4096", "64, 32678", "256, 32678"})
    void lockDelayMaxIsFreeBsds(int ncpu, int max) {
        assertEquals(max, VirtualClock.lockDelayMax(ncpu));
    }
}
