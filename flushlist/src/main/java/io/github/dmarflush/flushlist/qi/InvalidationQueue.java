package io.github.dmarflush.flushlist.qi;

/**
 * The software side of a DMAR unit's invalidation queue (QI): the ring of 128-bit
 * descriptors at IQA and the tail register IQT, as the {@code qi_ensure},
 * {@code qi_emit_wait_descr} and {@code qi_advance_tail} methods of FreeBSD's
 * {@code struct x86_iommu} ({@code dmar_qi_ensure}, {@code dmar_qi_emit_wait_descr},
 * {@code dmar_qi_advance_tail} in {@code sys/x86/iommu/intel_qi.c}).
 *
 * <p>All three are called with the unit lock held. Descriptors written by
 * {@link #emitWaitDescriptor} are invisible to the hardware until {@link #advanceTail}
 * writes IQT past them.
 */
public interface InvalidationQueue {

    /**
     * Waits until the ring has room for {@code descriptors} more descriptors, keeping one
     * slot free so that a full ring is not taken for an empty one. While it waits it
     * advances IQT over what is already written, so the hardware can make room.
     *
     * @param descriptors the number of 16-byte descriptors about to be written, at least 1
     */
    void ensure(int descriptors);

    /**
     * Writes an invalidation wait descriptor at the software tail (not yet visible to the
     * hardware).
     *
     * @param seq the status data the hardware writes when it reaches the descriptor
     *     (unsigned)
     * @param interrupt the IF bit: set ICS.IWC and raise the completion interrupt
     * @param statusWrite the SW bit: write {@code seq} to the unit's status word
     * @param fence the FN bit: process no later descriptor before this one completes
     */
    void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence);

    /** Writes IQT: makes every descriptor written so far visible to the hardware. */
    void advanceTail();
}
