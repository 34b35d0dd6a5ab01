package io.github.dmarflush.flushlist.qi;

/**
 * The Invalidation Completion Status register (ICS) of a DMAR unit, as the QI task reads
 * and clears it ({@code DMAR_ICS_REG}, {@code DMAR_ICS_IWC} in FreeBSD
 * {@code sys/x86/iommu/intel_reg.h}).
 *
 * <p>The hardware sets IWC when it completes a wait descriptor with the IF bit, and raises
 * the completion interrupt only when IWC goes from 0 to 1; software clears it by writing 1.
 * While IWC stays set, further completions raise no interrupt, which is why the QI task
 * drains a second time after clearing it.
 */
public interface InvalidationCompletionStatus {

    /**
     * Reads ICS.
     *
     * @return true if the Invalidation Wait Descriptor Complete (IWC) bit is set
     */
    boolean iwc();

    /** Writes 1 to ICS.IWC, clearing it, so the next completion raises an interrupt. */
    void clearIwc();
}
