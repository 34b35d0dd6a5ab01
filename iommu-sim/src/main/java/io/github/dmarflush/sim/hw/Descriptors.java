package io.github.dmarflush.sim.hw;

/**
 * Encoding of the 128-bit invalidation-queue descriptors, as laid out in the Intel VT-d
 * specification (section "Invalidation Queue Descriptors") and FreeBSD's
 * {@code sys/x86/iommu/intel_reg.h}. A descriptor is two 64-bit words: {@code lo} (bits
 * 63:0) and {@code hi} (bits 127:64). The descriptor type is in bits 3:0 of {@code lo}.
 */
public final class Descriptors {

    private Descriptors() {
    }

    /** Size of one descriptor in the ring, bytes. */
    public static final int DESCR_SIZE = 16;

    /** Type field mask, lo bits 3:0. */
    public static final long TYPE_MASK = 0xF;
    /** Context-cache invalidate descriptor. */
    public static final long CTX_INV = 0x1;
    /** IOTLB invalidate descriptor. */
    public static final long IOTLB_INV = 0x2;
    /** Interrupt entry cache invalidate descriptor. */
    public static final long IEC_INV = 0x4;
    /** Invalidation wait descriptor. */
    public static final long WAIT = 0x5;

    // IOTLB invalidate, lo word.
    /** Granularity field, lo bits 5:4. */
    public static final long IOTLB_GRAN_MASK = 0x3L << 4;
    /** Global invalidation. */
    public static final long IOTLB_GLOB = 0x1L << 4;
    /** Domain-selective invalidation. */
    public static final long IOTLB_DOM = 0x2L << 4;
    /** Page-selective-within-domain invalidation. */
    public static final long IOTLB_PAGE = 0x3L << 4;
    /** Drain writes, lo bit 6. */
    public static final long IOTLB_DW = 1L << 6;
    /** Drain reads, lo bit 7. */
    public static final long IOTLB_DR = 1L << 7;
    /** Domain id shift, lo bits 31:16. */
    public static final int IOTLB_DID_SHIFT = 16;
    // IOTLB invalidate, hi word: ADDR bits 63:12, IH bit 6, AM bits 5:0.
    /** Address mask field, hi bits 5:0. */
    public static final long IOTLB_AM_MASK = 0x3F;

    // Wait descriptor, lo word.
    /** Interrupt flag, lo bit 4: set ICS.IWC and interrupt on completion. */
    public static final long WAIT_IF = 1L << 4;
    /** Status write, lo bit 5: write the status data to the status address. */
    public static final long WAIT_SW = 1L << 5;
    /** Fence, lo bit 6. */
    public static final long WAIT_FN = 1L << 6;
    /** Status data shift, lo bits 63:32. */
    public static final int WAIT_SD_SHIFT = 32;

    /**
     * A page-selective IOTLB invalidation of {@code 2^am} pages at {@code base} in domain
     * {@code did}, with drain reads and writes, as FreeBSD's {@code dmar_qi_invalidate_emit}.
     *
     * @param did domain id, 0..65535
     * @param base IOVA, bytes, aligned to {@code 2^am} pages
     * @param am address mask: log2 of the number of 4 KiB pages, 0..63
     * @return {@code {lo, hi}}
     */
    public static long[] iotlbPage(int did, long base, int am) {
        return new long[] {
            IOTLB_INV | IOTLB_PAGE | IOTLB_DW | IOTLB_DR | ((long) (did & 0xFFFF) << IOTLB_DID_SHIFT),
            base | am
        };
    }

    /**
     * @param lo the low word of a wait descriptor
     * @return its status data (unsigned 32-bit)
     */
    public static int waitStatusData(long lo) {
        return (int) (lo >>> WAIT_SD_SHIFT);
    }

    /**
     * @param lo the low word of a descriptor
     * @return its type, lo bits 3:0
     */
    public static int type(long lo) {
        return (int) (lo & TYPE_MASK);
    }
}
