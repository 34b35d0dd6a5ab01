package io.github.dmarflush.sim.hw;

/**
 * A DMA remapping fault, as the unit records it in a fault-recording register (FRCD): the
 * requester, the IOVA, read or write, and why the access was refused.
 *
 * <p>Two of the reasons are VT-d fault reasons a real unit reports (no context entry, a
 * not-present second-level entry). The two {@code STALE_*} reasons are the simulator's DMA
 * checker: real hardware would silently use the stale IOTLB translation, which is exactly the
 * use-after-unmap the flush list protocol must prevent; the simulator compares every cached
 * translation with the page table and refuses the access instead.
 *
 * @param requestId the device's bus:device.function as a 16-bit source id
 * @param iova the faulting IOVA, bytes
 * @param write whether the access was a write (device to memory)
 * @param reason what the DMA checker found
 */
public record DmaFault(int requestId, long iova, boolean write, Reason reason) {

    /** Why a DMA access faulted. */
    public enum Reason {
        /** No present context entry for the requester (VT-d fault reason 2h). */
        NO_CONTEXT(0x2, "no context entry for the requester"),
        /** The page-table walk found no present entry: DMA to an unmapped IOVA (reason 7h). */
        NOT_PRESENT(0x7, "DMA to an unmapped IOVA (page-table entry not present)"),
        /**
         * The IOTLB still translated the IOVA although its page-table entry is gone: a
         * use-after-unmap through a stale translation (simulator checker).
         */
        STALE_UNMAPPED(0xF1, "use-after-unmap: the IOTLB still translates an IOVA whose page-table entry is gone"),
        /**
         * The IOTLB translated the IOVA to a different frame than the page table now holds:
         * the range was reused before its invalidation completed (simulator checker).
         */
        STALE_REMAPPED(0xF2, "stale IOTLB translation: the IOVA was reused before its invalidation completed");

        private final int code;
        private final String text;

        Reason(int code, String text) {
            this.code = code;
            this.text = text;
        }

        /** @return the fault reason code in FRCD bits 103:96 (F0h and up: simulator only) */
        public int code() {
            return code;
        }

        /** @return a one-line explanation */
        public String text() {
            return text;
        }
    }

    @Override
    public String toString() {
        return String.format("DMA fault: source %02x:%02x.%x %s iova 0x%x reason %02xh: %s",
                (requestId >>> 8) & 0xFF, (requestId >>> 3) & 0x1F, requestId & 7, write ? "write" : "read",
                iova, reason.code(), reason.text());
    }
}
