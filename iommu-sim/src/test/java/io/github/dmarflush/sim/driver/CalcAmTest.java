package io.github.dmarflush.sim.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CalcAmTest {

    @Test
    void largestAlignedPowerOfTwoThatFits() {
        assertEquals(0, DmarUnit.calcAm(0x1000, 0x1000));
        assertEquals(1, DmarUnit.calcAm(0x2000, 0x2000));
        assertEquals(0, DmarUnit.calcAm(0x3000, 0x2000), "misaligned base");
        assertEquals(4, DmarUnit.calcAm(0x10000, 0x18000));
        assertEquals(9, DmarUnit.calcAm(0x4000_0000L, 0x4000_0000L), "capped at MAMV 9");
        assertEquals(0, DmarUnit.calcAm(0xFFFF_FFFF_F000L, 0x1000), "one page at the top of 48 bits");
    }
}
