package io.github.dmarflush.sim.hw;

/**
 * The memory that holds the invalidation queue: {@code size / 16} descriptors of two 64-bit
 * words, addressed by byte offset as IQH and IQT are. Software writes descriptors with plain
 * stores and then publishes them with the (volatile) IQT register write; the hardware reads
 * IQT and then the words, so it sees them. FreeBSD allocates it with
 * {@code kmem_alloc_contig} in {@code iommu_qi_common_init}.
 */
public final class QueueMemory {

    private final long[] words;
    private final int sizeBytes;

    /**
     * @param qs the IQA queue size field: the queue holds {@code 2^qs} 4 KiB pages, that is
     *     {@code 256 * 2^qs} descriptors
     * @throws IllegalArgumentException unless {@code 0 <= qs <= 7}
     */
    public QueueMemory(int qs) {
        if (qs < 0 || qs > 7) {
            throw new IllegalArgumentException("IQA.QS must be 0..7, got " + qs);
        }
        this.sizeBytes = (1 << qs) * PhysicalMemory.PAGE_SIZE;
        this.words = new long[sizeBytes / 8];
    }

    /** @return the queue size in bytes */
    public int sizeBytes() {
        return sizeBytes;
    }

    /** @return the number of descriptor slots */
    public int slots() {
        return sizeBytes / Descriptors.DESCR_SIZE;
    }

    /**
     * Writes one descriptor.
     *
     * @param offset byte offset, a multiple of 16 below the queue size
     * @param lo bits 63:0
     * @param hi bits 127:64
     */
    public void write(int offset, long lo, long hi) {
        int i = offset >>> 3;
        words[i] = lo;
        words[i + 1] = hi;
    }

    /**
     * @param offset byte offset of a descriptor
     * @return its low word
     */
    public long lo(int offset) {
        return words[offset >>> 3];
    }

    /**
     * @param offset byte offset of a descriptor
     * @return its high word
     */
    public long hi(int offset) {
        return words[(offset >>> 3) + 1];
    }
}
