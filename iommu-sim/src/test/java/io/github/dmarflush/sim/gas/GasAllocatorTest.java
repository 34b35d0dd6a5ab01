package io.github.dmarflush.sim.gas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GasAllocatorTest {

    @Test
    void fourPageDomainWithPageZeroReserved() {
        GasAllocator gas = new GasAllocator(0x1000, 0x4000, true);
        assertEquals(0x2000, gas.allocate(0x2000), "8 KiB -> [0x2000, 0x4000)");
        assertEquals(-1, gas.allocate(0x2000), "8 KiB again -> out of space");
        assertEquals(0x1000, gas.allocate(0x1000), "4 KiB -> exactly [0x1000, 0x2000)");
        assertEquals(-1, gas.allocate(0x1000));
        gas.checkInvariants();
    }

    @Test
    void lowaddrAllOnesIsTheWholeSpaceNotBelowZero() {
        GasAllocator gas = new GasAllocator(0x1000, 1L << 48, true);
        GasConstraints allOnes = new GasConstraints(4096, 0, -1L, -1L);
        assertEquals(0x1000, gas.allocate(0x1000, allOnes));
    }

    @Test
    void thirtyTwoBitTagGetsTheLastPageBelowFourGibExactly() {
        GasAllocator gas = new GasAllocator(0x1000, 1L << 48, true);
        assertTrue(gas.reserve(0x1000, 0xFFFF_F000L - 0x1000, true), "fill below 4 GiB except the last page");
        GasConstraints dma32 = GasConstraints.below(0xFFFF_FFFFL);
        assertEquals(0xFFFF_F000L, gas.allocate(0x1000, dma32), "[0xFFFFF000, 0x100000000)");
        assertEquals(-1, gas.allocate(0x1000, dma32), "and then nothing is left below 4 GiB");
        GasConstraints allOnes = new GasConstraints(4096, 0, -1L, -1L);
        assertEquals(0x1_0000_0000L, gas.allocate(0x1000, allOnes), "an unconstrained tag goes above");
        gas.checkInvariants();
    }

    @Test
    void upperRegionAboveHighaddrAndBoundaryAndAlignment() {
        GasAllocator gas = new GasAllocator(0x1000, 1L << 32, false);
        // Lower region [.., 0x2FFF] holds one page; the window (0x2FFF, 0x0FFF_FFFF] is excluded.
        GasConstraints c = new GasConstraints(4096, 0, 0x2FFF, 0x0FFF_FFFF);
        assertEquals(0x1000, gas.allocate(0x2000, c));
        assertEquals(0x1000_0000L, gas.allocate(0x1000, c), "no room below lowaddr: above highaddr");
        GasConstraints aligned = new GasConstraints(0x10000, 0, -1L, -1L);
        assertEquals(0x10000, gas.allocate(0x1000, aligned));
        GasConstraints boundary = new GasConstraints(4096, 0x10000, -1L, -1L);
        long s = gas.allocate(0xF000, boundary);
        assertEquals(s & ~0xFFFFL, (s + 0xF000 - 1) & ~0xFFFFL, "does not cross a 64 KiB boundary");
        assertThrows(IllegalArgumentException.class, () -> gas.allocate(0x20000, boundary));
        gas.checkInvariants();
    }

    @Test
    void freeDetectsDoubleFreeAndRefusesPermanentReservations() {
        GasAllocator gas = new GasAllocator(0x1000, 0x10000);
        long a = gas.allocate(0x1000);
        long b = gas.allocate(0x1000);
        gas.free(a, 0x1000);
        gas.free(b, 0x1000);
        assertEquals(0, gas.allocatedCount());
        assertEquals(1, gas.freeExtents());
        var e = assertThrows(IllegalStateException.class, () -> gas.free(b, 0x1000));
        assertEquals("free of [0x2000, 0x3000), which is not an allocated range (double free?)", e.getMessage());
        assertTrue(gas.reserve(0x8000, 0x1000, true));
        assertFalse(gas.reserve(0x8000, 0x2000, false), "overlaps the reservation");
        assertThrows(IllegalStateException.class, () -> gas.free(0x8000, 0x1000));
    }

    @Test
    void reuseIsLowestAddressFirst() {
        GasAllocator gas = new GasAllocator(0x1000, 1L << 48);
        assertEquals(0x1000, gas.allocate(0x1000));
        assertEquals(0x2000, gas.allocate(0x2000));
        assertEquals(0x4000, gas.allocate(0x1000));
        gas.free(0x2000, 0x2000);
        assertEquals(0x2000, gas.allocate(0x1000), "lowest fit");
        assertEquals(0x3000, gas.allocate(0x1000));
        assertEquals(0x5000, gas.allocate(0x1000));
    }

    /**
     * The tree against a reference that tries every candidate start in address order over a
     * small space: same answers for random allocate/free sequences under random constraints,
     * and intact augmentation after every step.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomSequencesMatchABruteForceReference(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long pages = 512;
        boolean sizeAligned = (seed & 1) == 0;
        GasAllocator gas = new GasAllocator(0x1000, pages * 4096, sizeAligned);
        Reference ref = new Reference(0x1000, pages * 4096, sizeAligned);
        List<long[]> live = new ArrayList<>();
        for (int step = 0; step < 3000; step++) {
            if (!live.isEmpty() && rnd.nextInt(100) < 45) {
                long[] r = live.remove(rnd.nextInt(live.size()));
                gas.free(r[0], r[1]);
                ref.free(r[0]);
            } else {
                long size = (1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(40) : rnd.nextInt(4))) * 4096L;
                long align = 4096L << rnd.nextInt(4);
                long boundary = rnd.nextInt(3) == 0 ? Math.max(size, 4096L << (2 + rnd.nextInt(5))) : 0;
                if (boundary != 0 && Long.bitCount(boundary) != 1) {
                    boundary = Long.highestOneBit(boundary) << 1;
                }
                long lowaddr = rnd.nextInt(3) == 0 ? -1L : (rnd.nextLong(pages) * 4096 - 1);
                long highaddr = rnd.nextBoolean() ? -1L
                        : lowaddr == -1L ? -1L : lowaddr + rnd.nextLong(pages / 2) * 4096;
                if (lowaddr < 0x1000 && lowaddr != -1L) {
                    lowaddr = 0xFFF;
                }
                GasConstraints c = new GasConstraints(align, boundary, lowaddr, highaddr);
                long got = gas.allocate(size, c);
                long want = ref.allocate(size, c, gas.alignmentFor(size, c));
                assertEquals(want, got, "step " + step + ": size 0x" + Long.toHexString(size) + " " + c);
                if (got >= 0) {
                    live.add(new long[] {got, size});
                }
            }
            gas.checkInvariants();
            assertEquals(live.size(), gas.allocatedCount());
        }
        assertTrue(gas.height() <= 1.45 * (Math.log(live.size() + 4) / Math.log(2)) + 2, "balanced: " + gas.height());
    }

    /** Lowest-first over every aligned candidate; obviously correct, slow. */
    private static final class Reference {
        final long lowest;
        final long end;
        final TreeMap<Long, Long> taken = new TreeMap<>();

        Reference(long lowest, long end, boolean sizeAligned) {
            this.lowest = lowest;
            this.end = end;
        }

        boolean free(long s, long e) {
            var below = taken.floorEntry(e - 1);
            return below == null || below.getValue() <= s;
        }

        long allocate(long size, GasConstraints c, long align) {
            for (long s = lowest; s + size <= end; s += 4096) {
                if (s % align != 0) {
                    continue;
                }
                long last = s + size - 1;
                boolean lower = Long.compareUnsigned(last, c.lowaddr()) <= 0;
                boolean upper = Long.compareUnsigned(s, c.highaddr()) > 0;
                if (!lower && !upper) {
                    continue;
                }
                if (c.boundary() != 0 && (s & -c.boundary()) != (last & -c.boundary())) {
                    continue;
                }
                if (free(s, s + size)) {
                    // Ascending order: every lower-region start comes before every upper one.
                    taken.put(s, s + size);
                    return s;
                }
            }
            return -1;
        }

        void free(long s) {
            taken.remove(s);
        }
    }
}
