package io.github.dmarflush.sim.hw;

/**
 * A DMA remapping fault, as the unit records it in its fault-recording registers: the
 * requester, the IOVA, and why the access was refused.
 *
 * @param requestId the device's bus:device.function as a 16-bit source id
 * @param iova the faulting IOVA, bytes
 * @param reason what the DMA checker found
 */
public record DmaFault(int requestId, long iova, Reason reason) {

    /** Why a DMA access faulted. */
    public enum Reason {
        /** No context entry for the requester. */
        NO_CONTEXT("no context entry for the requester"),
        /** The page-table walk found no present entry: DMA to an unmapped IOVA. */
        NOT_PRESENT("DMA to an unmapped IOVA (page-table entry not present)"),
        /**
         * The IOTLB still translated the IOVA although its page-table entry is gone: a
         * use-after-unmap through a stale translation.
         */
        STALE_UNMAPPED("use-after-unmap: the IOTLB still translates an IOVA whose page-table entry is gone"),
        /**
         * The IOTLB translated the IOVA to a different frame than the page table now holds:
         * the range was reused before its invalidation completed.
         */
        STALE_REMAPPED("stale IOTLB translation: the IOVA was reused before its invalidation completed");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        /** @return a one-line explanation */
        public String text() {
            return text;
        }
    }

    @Override
    public String toString() {
        return String.format("DMA fault: source %02x:%02x.%x iova 0x%x: %s",
                (requestId >>> 8) & 0xFF, (requestId >>> 3) & 0x1F, requestId & 7, iova, reason.text());
    }
}
