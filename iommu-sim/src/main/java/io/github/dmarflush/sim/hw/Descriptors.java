package io.github.dmarflush.sim.hw;

/**
 * Encoding and validation of the 128-bit invalidation-queue descriptors, as laid out in the
 * Intel VT-d specification (chapter "Translation Caching", section "Queued Invalidation
 * Descriptors") and FreeBSD's {@code sys/x86/iommu/intel_reg.h}. A descriptor is two 64-bit
 * words: {@code lo} (bits 63:0) and {@code hi} (bits 127:64). The type is in lo bits 3:0;
 * lo bits 11:9 are the upper type bits of the 256-bit format and must be 0 here.
 *
 * <table>
 *   <caption>Fields (lo / hi); every bit not listed is reserved and must be 0</caption>
 *   <tr><th>type</th><th>lo</th><th>hi</th></tr>
 *   <tr><td>1 context-cache</td><td>G 5:4, DID 31:16, SID 47:32, FM 49:48</td><td>reserved</td></tr>
 *   <tr><td>2 IOTLB</td><td>G 5:4, DW 6, DR 7, DID 31:16</td><td>AM 5:0, IH 6, ADDR 63:12</td></tr>
 *   <tr><td>4 interrupt entry cache</td><td>G 4, IM 31:27, IIDX 47:32</td><td>reserved</td></tr>
 *   <tr><td>5 wait</td><td>IF 4, SW 5, FN 6, status data 63:32</td><td>status address 63:2</td></tr>
 * </table>
 *
 * <p>The simulated unit supports no other type (no device-TLB, PASID or page-request
 * descriptors, so the wait descriptor's PD bit 7 is reserved too); a descriptor of another
 * type, or with a reserved bit set, is an invalidation-queue error ({@link #reservedBits}).
 * The encoders are pure functions; nothing here allocates.
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

    // Context-cache invalidate, lo word.
    /** Granularity field, lo bits 5:4. */
    public static final long CTX_GRAN_MASK = 0x3L << 4;
    /** Global context-cache invalidation. */
    public static final long CTX_GLOB = 0x1L << 4;
    /** Domain-selective context-cache invalidation. */
    public static final long CTX_DOM = 0x2L << 4;
    /** Device-selective context-cache invalidation. */
    public static final long CTX_DEV = 0x3L << 4;
    /** Domain id, lo bits 31:16. */
    public static final int CTX_DID_SHIFT = 16;
    /** Source id, lo bits 47:32. */
    public static final int CTX_SID_SHIFT = 32;
    /** Function mask, lo bits 49:48. */
    public static final int CTX_FM_SHIFT = 48;

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
    /** Invalidation hint, hi bit 6. */
    public static final long IOTLB_IH = 1L << 6;
    /** The address field, hi bits 63:12. */
    public static final long IOTLB_ADDR_MASK = ~0xFFFL;
    /**
     * The largest address mask this unit accepts (CAP.MAMV): 9, a 2 MiB region, as on most
     * Intel parts. A larger AM is an invalidation-queue error.
     */
    public static final int MAMV = 9;

    // Interrupt entry cache invalidate, lo word.
    /** Index-selective (1) or global (0), lo bit 4. */
    public static final long IEC_INDEX = 1L << 4;
    /** Index mask, lo bits 31:27. */
    public static final int IEC_IM_SHIFT = 27;
    /** Interrupt index, lo bits 47:32. */
    public static final int IEC_IIDX_SHIFT = 32;

    // Wait descriptor, lo word.
    /** Interrupt flag, lo bit 4: set ICS.IWC and interrupt on completion. */
    public static final long WAIT_IF = 1L << 4;
    /** Status write, lo bit 5: write the status data to the status address. */
    public static final long WAIT_SW = 1L << 5;
    /** Fence, lo bit 6: later descriptors wait until this one and all before it completed. */
    public static final long WAIT_FN = 1L << 6;
    /** Status data shift, lo bits 63:32. */
    public static final int WAIT_SD_SHIFT = 32;
    /** The status address field, hi bits 63:2 (a 4-byte aligned address). */
    public static final long WAIT_ADDR_MASK = ~0x3L;

    // Reserved bits per type (1 = must be 0).
    private static final long CTX_LO_RSVD = bits(15, 6) | bits(63, 50);
    private static final long IOTLB_LO_RSVD = bits(15, 8) | bits(63, 32);
    private static final long IOTLB_HI_RSVD = bits(11, 7);
    private static final long IEC_LO_RSVD = bits(26, 5) | bits(63, 48);
    private static final long WAIT_LO_RSVD = bits(31, 7);
    private static final long WAIT_HI_RSVD = bits(1, 0);

    private static long bits(int hi, int lo) {
        long width = hi - lo + 1;
        return (width == 64 ? -1L : ((1L << width) - 1)) << lo;
    }

    // ---- encoders ----

    /**
     * The lo word of a page-selective IOTLB invalidation in domain {@code did}, with drain
     * reads and writes, as FreeBSD's {@code dmar_qi_invalidate_emit}.
     *
     * @param did domain id, 0..65535
     * @return lo
     */
    public static long iotlbPageLo(int did) {
        return IOTLB_INV | IOTLB_PAGE | IOTLB_DW | IOTLB_DR | ((long) (did & 0xFFFF) << IOTLB_DID_SHIFT);
    }

    /**
     * The hi word of a page-selective IOTLB invalidation of {@code 2^am} pages at
     * {@code base}.
     *
     * @param base IOVA, bytes, aligned to {@code 2^am} 4 KiB pages
     * @param am address mask, 0..{@link #MAMV}
     * @return hi
     * @throws IllegalArgumentException if {@code base} is not aligned or {@code am} is out of range
     */
    public static long iotlbPageHi(long base, int am) {
        if (am < 0 || am > MAMV) {
            throw new IllegalArgumentException("address mask must be 0.." + MAMV + ", got " + am);
        }
        if ((base & ((1L << (am + 12)) - 1)) != 0) {
            throw new IllegalArgumentException(String.format(
                    "IOVA 0x%x is not aligned to 2^%d pages", base, am));
        }
        return base | am;
    }

    /**
     * A page-selective IOTLB invalidation, both words.
     *
     * @param did domain id
     * @param base IOVA, aligned to {@code 2^am} pages
     * @param am address mask
     * @return {@code {lo, hi}}
     */
    public static long[] iotlbPage(int did, long base, int am) {
        return new long[] {iotlbPageLo(did), iotlbPageHi(base, am)};
    }

    /**
     * A domain-selective IOTLB invalidation, lo word (hi is 0).
     *
     * @param did domain id
     * @return lo
     */
    public static long iotlbDomainLo(int did) {
        return IOTLB_INV | IOTLB_DOM | IOTLB_DW | IOTLB_DR | ((long) (did & 0xFFFF) << IOTLB_DID_SHIFT);
    }

    /**
     * A global IOTLB invalidation, lo word (hi is 0), as {@code dmar_qi_invalidate_iotlb_glob_locked}.
     *
     * @return lo
     */
    public static long iotlbGlobalLo() {
        return IOTLB_INV | IOTLB_GLOB | IOTLB_DW | IOTLB_DR;
    }

    /**
     * A global context-cache invalidation, lo word (hi is 0), as
     * {@code dmar_qi_invalidate_ctx_glob_locked}.
     *
     * @return lo
     */
    public static long contextGlobalLo() {
        return CTX_INV | CTX_GLOB;
    }

    /**
     * A domain-selective context-cache invalidation, lo word.
     *
     * @param did domain id
     * @return lo
     */
    public static long contextDomainLo(int did) {
        return CTX_INV | CTX_DOM | ((long) (did & 0xFFFF) << CTX_DID_SHIFT);
    }

    /**
     * A device-selective context-cache invalidation, lo word.
     *
     * @param did domain id
     * @param sid source id (bus:device.function)
     * @param fm function mask, 0..3: how many low function bits of {@code sid} to ignore
     * @return lo
     */
    public static long contextDeviceLo(int did, int sid, int fm) {
        return CTX_INV | CTX_DEV | ((long) (did & 0xFFFF) << CTX_DID_SHIFT)
                | ((long) (sid & 0xFFFF) << CTX_SID_SHIFT) | ((long) (fm & 3) << CTX_FM_SHIFT);
    }

    /**
     * A global interrupt-entry-cache invalidation, lo word, as {@code dmar_qi_invalidate_iec_glob}.
     *
     * @return lo
     */
    public static long iecGlobalLo() {
        return IEC_INV;
    }

    /**
     * An index-selective interrupt-entry-cache invalidation, lo word, as
     * {@code dmar_qi_invalidate_iec}.
     *
     * @param index first interrupt-remapping table index
     * @param im index mask: {@code 2^im} entries, 0..31
     * @return lo
     */
    public static long iecIndexLo(int index, int im) {
        return IEC_INV | IEC_INDEX | ((long) (im & 0x1F) << IEC_IM_SHIFT)
                | ((long) (index & 0xFFFF) << IEC_IIDX_SHIFT);
    }

    /**
     * A wait descriptor, lo word, as {@code dmar_qi_emit_wait_descr}.
     *
     * @param seq status data (unsigned); written to the status address when {@code sw}
     * @param intr IF: set ICS.IWC and interrupt
     * @param sw SW: status write
     * @param fence FN: fence
     * @return lo
     */
    public static long waitLo(int seq, boolean intr, boolean sw, boolean fence) {
        return WAIT | (intr ? WAIT_IF : 0) | (sw ? WAIT_SW : 0) | (fence ? WAIT_FN : 0)
                | (sw ? (seq & 0xFFFF_FFFFL) << WAIT_SD_SHIFT : 0);
    }

    /**
     * A wait descriptor, hi word.
     *
     * @param statusAddress physical address of the status word, 4-byte aligned
     * @return hi
     */
    public static long waitHi(long statusAddress) {
        return statusAddress & WAIT_ADDR_MASK;
    }

    // ---- decoders ----

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

    /**
     * @param lo an IOTLB or context-cache descriptor's low word
     * @return its domain id
     */
    public static int did(long lo) {
        return (int) (lo >>> 16) & 0xFFFF;
    }

    /**
     * Checks a descriptor as the hardware does before executing it.
     *
     * @param lo bits 63:0
     * @param hi bits 127:64
     * @return 0 for a valid descriptor; otherwise the offending bits of {@code lo}, or, when
     *     only {@code hi} is wrong, {@code -1}
     */
    public static long reservedBits(long lo, long hi) {
        switch (type(lo)) {
            case (int) CTX_INV -> {
                if ((lo & CTX_GRAN_MASK) == 0) {
                    return CTX_GRAN_MASK;
                }
                if ((lo & CTX_LO_RSVD) != 0) {
                    return lo & CTX_LO_RSVD;
                }
                return hi != 0 ? -1 : 0;
            }
            case (int) IOTLB_INV -> {
                if ((lo & IOTLB_GRAN_MASK) == 0) {
                    return IOTLB_GRAN_MASK;
                }
                if ((lo & IOTLB_LO_RSVD) != 0) {
                    return lo & IOTLB_LO_RSVD;
                }
                if ((lo & IOTLB_GRAN_MASK) == IOTLB_PAGE
                        && ((hi & IOTLB_HI_RSVD) != 0 || (hi & IOTLB_AM_MASK) > MAMV)) {
                    return -1;
                }
                return 0;
            }
            case (int) IEC_INV -> {
                if ((lo & IEC_LO_RSVD) != 0) {
                    return lo & IEC_LO_RSVD;
                }
                return hi != 0 ? -1 : 0;
            }
            case (int) WAIT -> {
                if ((lo & WAIT_LO_RSVD) != 0) {
                    return lo & WAIT_LO_RSVD;
                }
                return (hi & WAIT_HI_RSVD) != 0 ? -1 : 0;
            }
            default -> {
                return TYPE_MASK; // an unsupported type
            }
        }
    }

    /**
     * @param lo a descriptor's low word
     * @return a short name for reports: {@code iotlb}, {@code ctx}, {@code iec}, {@code wait},
     *     or {@code type N}
     */
    public static String typeName(long lo) {
        return switch (type(lo)) {
            case (int) CTX_INV -> "ctx";
            case (int) IOTLB_INV -> "iotlb";
            case (int) IEC_INV -> "iec";
            case (int) WAIT -> "wait";
            default -> "type " + type(lo);
        };
    }
}
