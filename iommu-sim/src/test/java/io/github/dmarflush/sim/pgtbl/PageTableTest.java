package io.github.dmarflush.sim.pgtbl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PageTableTest {

    @Test
    void mapWalkUnmap() {
        PageTable pt = new PageTable(4);
        assertEquals(48, pt.addressWidth());
        pt.map(0x7FFF_FFFF_E000L, 0x123000, 0x2000);
        assertEquals(0x123000 | PageTable.PTE_R | PageTable.PTE_W, pt.walk(0x7FFF_FFFF_E000L));
        assertEquals(0x124000 | PageTable.PTE_R | PageTable.PTE_W, pt.walk(0x7FFF_FFFF_F123L));
        assertEquals(0, pt.walk(0x7FFF_FFFF_D000L));
        // one root, and one table per level below it for this corner of the space
        assertEquals(4, pt.tablePages());
        pt.unmap(0x7FFF_FFFF_E000L, 0x1000);
        assertEquals(0, pt.walk(0x7FFF_FFFF_E000L));
        assertEquals(0x124000 | PageTable.PTE_R | PageTable.PTE_W, pt.walk(0x7FFF_FFFF_F000L));
    }

    @Test
    void levelsSetTheAddressWidth() {
        assertEquals(39, new PageTable(3).addressWidth());
        assertEquals(57, new PageTable(5).addressWidth());
        assertThrows(IllegalArgumentException.class, () -> new PageTable(6));
        PageTable pt = new PageTable(3);
        var e = assertThrows(IllegalArgumentException.class, () -> pt.map(1L << 39, 0, 0x1000));
        assertEquals("range [0x8000000000, 0x8000001000) exceeds the 39-bit address width", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pt.map(0x1001, 0, 0x1000));
    }
}
