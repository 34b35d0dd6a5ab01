package io.github.dmarflush.sim.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DescriptorsTest {

    @Test
    void pageSelectiveIotlbInvalidationMatchesTheSpecLayout() {
        long[] d = Descriptors.iotlbPage(0x1234, 0x7000_0000L, 3);
        // lo: type 2, granularity 11b (page) in bits 5:4, DW bit 6, DR bit 7, DID in 31:16
        assertEquals(0x2L | (3L << 4) | (1L << 6) | (1L << 7) | (0x1234L << 16), d[0]);
        // hi: address in 63:12, AM in 5:0
        assertEquals(0x7000_0000L | 3, d[1]);
        assertEquals(2, Descriptors.type(d[0]));
    }

    @Test
    void waitDescriptorStatusDataIsUnsignedInTheUpperHalf() {
        long lo = Descriptors.WAIT | Descriptors.WAIT_IF | Descriptors.WAIT_SW
                | (0xFFFF_FFFEL << Descriptors.WAIT_SD_SHIFT);
        assertEquals(5, Descriptors.type(lo));
        assertEquals(0xFFFF_FFFE, Descriptors.waitStatusData(lo));
        assertEquals(1L << 4, Descriptors.WAIT_IF);
        assertEquals(1L << 5, Descriptors.WAIT_SW);
        assertEquals(1L << 6, Descriptors.WAIT_FN);
    }
}
