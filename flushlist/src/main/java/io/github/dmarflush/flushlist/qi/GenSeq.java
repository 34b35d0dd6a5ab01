package io.github.dmarflush.flushlist.qi;

/**
 * A (gen, seq) pair packed into one {@code long}, as FreeBSD's
 * {@code struct iommu_qi_genseq} ({@code sys/dev/iommu/iommu.h}): the generation in the
 * upper 32 bits, the 32-bit wait-descriptor sequence number in the lower 32 bits. Packing
 * lets entries and the drain's stop condition carry a (gen, seq) without allocating.
 *
 * <p>Both halves are <em>unsigned</em> 32-bit numbers: sequence numbers run from 1 to
 * {@code 0xFFFFFFFF} within a generation, and {@code 0x80000000} is greater than
 * {@code 0x7FFFFFFF}. Compare them with {@link Integer#compareUnsigned}, never with
 * {@code <}.
 */
public final class GenSeq {

    /**
     * The last sequence number of a generation. When the next sequence number to hand out
     * is this one, {@link QiSequencer#emitWaitSeq} wraps to the next generation.
     */
    public static final int SEQ_WRAP = 0xFFFF_FFFF;

    private GenSeq() {
    }

    /**
     * Packs a (gen, seq) pair.
     *
     * @param gen the generation (unsigned)
     * @param seq the sequence number (unsigned)
     * @return the packed pair
     */
    public static long of(int gen, int seq) {
        return ((long) gen << 32) | (seq & 0xFFFF_FFFFL);
    }

    /**
     * @param gseq a packed pair
     * @return its generation (unsigned)
     */
    public static int gen(long gseq) {
        return (int) (gseq >>> 32);
    }

    /**
     * @param gseq a packed pair
     * @return its sequence number (unsigned)
     */
    public static int seq(long gseq) {
        return (int) gseq;
    }

    /**
     * @param gseq a packed pair
     * @return {@code (gen N, seq 0xXXXXXXXX)}, both unsigned
     */
    public static String toString(long gseq) {
        return "(gen " + Integer.toUnsignedString(gen(gseq))
                + ", seq 0x" + String.format("%08x", seq(gseq)) + ")";
    }
}
