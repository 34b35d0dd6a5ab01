package io.github.dmarflush.sim.gas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class GasAllocatorTest {

    @Test
    void allocatesLowestFirstAndReusesFreedSpaceSoon() {
        GasAllocator gas = new GasAllocator(0x1000, 1L << 48);
        assertEquals(0x1000, gas.allocate(0x1000));
        assertEquals(0x2000, gas.allocate(0x2000));
        assertEquals(0x4000, gas.allocate(0x1000));
        gas.free(0x2000, 0x2000);
        assertEquals(0x2000, gas.allocate(0x1000), "lowest fit");
        assertEquals(0x3000, gas.allocate(0x1000));
        assertEquals(0x5000, gas.allocate(0x1000));
    }

    @Test
    void freeMergesNeighboursAndDetectsDoubleFree() {
        GasAllocator gas = new GasAllocator(0x1000, 0x10000);
        long a = gas.allocate(0x1000);
        long b = gas.allocate(0x1000);
        long c = gas.allocate(0x1000);
        gas.free(a, 0x1000);
        gas.free(c, 0x1000);
        gas.free(b, 0x1000);
        assertEquals(1, gas.freeExtents());
        assertEquals(0, gas.allocatedCount());
        var e = assertThrows(IllegalStateException.class, () -> gas.free(b, 0x1000));
        assertEquals("free of [0x2000, 0x3000), which is not an allocated range (double free?)", e.getMessage());
    }

    @Test
    void exhaustionReturnsMinusOne() {
        GasAllocator gas = new GasAllocator(0x1000, 0x3000);
        assertEquals(0x1000, gas.allocate(0x2000));
        assertEquals(-1, gas.allocate(0x1000));
        assertThrows(IllegalArgumentException.class, () -> gas.allocate(100));
    }
}
