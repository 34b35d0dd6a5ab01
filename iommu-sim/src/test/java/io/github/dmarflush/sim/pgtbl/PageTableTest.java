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

    @Test
    void superpagesWhereAlignedAndLargeEnough() {
        PageTable pt = new PageTable(4, true, true);
        pt.map(0x4000_0000L, 0x8000_0000L, (1L << 30) + (2L << 20) + 0x1000);
        assertEquals(1, pt.pagesMapped(PageTable.SHIFT_1G));
        assertEquals(1, pt.pagesMapped(PageTable.SHIFT_2M));
        assertEquals(1, pt.pagesMapped(PageTable.SHIFT_4K));
        long pte = pt.walk(0x4000_0000L + 0x1234_5678L);
        assertEquals(30, PageTable.pageShift(pte));
        assertEquals(0x8000_0000L + 0x1234_5678L, PageTable.translate(pte, 0x4000_0000L + 0x1234_5678L));
        long pte2 = pt.walk(0x8000_0000L + 0x1000);
        assertEquals(21, PageTable.pageShift(pte2));
        assertEquals(PageTable.PTE_PS, pte2 & PageTable.PTE_PS);
        assertThrows(IllegalArgumentException.class, () -> pt.unmap(0x4000_0000L, 0x1000), "splits a 1 GiB page");
        pt.unmap(0x4000_0000L, 1L << 30);
        assertEquals(0, pt.walk(0x4000_0000L));
        // Misaligned physical address: 4 KiB pages only.
        PageTable small = new PageTable(3, true, true);
        small.map(0x20_0000L, 0x1000, 2L << 20);
        assertEquals(512, small.pagesMapped(PageTable.SHIFT_4K));
        assertEquals(0, small.pagesMapped(PageTable.SHIFT_2M));
        assertEquals(3, small.tablePages(), "root, one directory, one page table");
    }

    @Test
    void fiveLevelTableReachesTheTopOf57Bits() {
        PageTable pt = new PageTable(5);
        long top = (1L << 57) - 0x1000;
        pt.map(top, 0x5000, 0x1000);
        assertEquals(0x5000 | PageTable.PTE_R | PageTable.PTE_W, pt.walk(top));
        assertEquals(5, pt.tablePages());
    }
}
