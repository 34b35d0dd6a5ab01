package io.github.dmarflush.sim.hw;

import java.util.Objects;

/**
 * The invalidation queue as it sits in physical memory: {@code 2^qs} 4 KiB pages at a
 * page-aligned base, that is {@code 256 * 2^qs} descriptors of two 64-bit words, addressed by
 * byte offset as IQH and IQT are. FreeBSD allocates it with {@code kmem_alloc_contig} in
 * {@code iommu_qi_common_init} and programs its address and size into IQA.
 *
 * <p>Software writes descriptors with plain stores and then publishes them with the
 * (volatile) IQT register write; the hardware reads IQT and then the words, so it sees them.
 * The words live in {@link PhysicalMemory}: the engine fetches them from the address in IQA.
 */
public final class QueueMemory {

    /** IQA.QS: at most {@code 2^7} pages. */
    public static final int MAX_QS = 7;

    private final PhysicalMemory memory;
    private final long base;
    private final int qs;
    private final int sizeBytes;

    /**
     * Allocates the queue in {@code memory}.
     *
     * @param memory physical memory
     * @param qs the IQA queue size field: {@code 2^qs} 4 KiB pages
     * @return the queue
     * @throws IllegalArgumentException unless {@code 0 <= qs <= 7}
     */
    public static QueueMemory allocate(PhysicalMemory memory, int qs) {
        checkQs(qs);
        return new QueueMemory(memory, memory.allocate((long) PhysicalMemory.PAGE_SIZE << qs), qs);
    }

    /**
     * A view of a queue already in memory (what the hardware builds from IQA).
     *
     * @param memory physical memory
     * @param base the queue's physical address, 4 KiB aligned
     * @param qs the queue size field
     */
    public QueueMemory(PhysicalMemory memory, long base, int qs) {
        checkQs(qs);
        this.memory = Objects.requireNonNull(memory, "memory");
        if ((base & (PhysicalMemory.PAGE_SIZE - 1)) != 0) {
            throw new IllegalArgumentException(String.format("queue base 0x%x is not 4 KiB aligned", base));
        }
        this.base = base;
        this.qs = qs;
        this.sizeBytes = PhysicalMemory.PAGE_SIZE << qs;
        if (!memory.contains(base, sizeBytes)) {
            throw new IllegalArgumentException(String.format(
                    "queue [0x%x, 0x%x) is outside physical memory", base, base + sizeBytes));
        }
    }

    private static void checkQs(int qs) {
        if (qs < 0 || qs > MAX_QS) {
            throw new IllegalArgumentException("IQA.QS must be 0.." + MAX_QS + ", got " + qs);
        }
    }

    /** @return the IQA value that programs this queue: base | QS (128-bit descriptors, DW = 0) */
    public long iqa() {
        return base | qs;
    }

    /** @return the queue's physical address */
    public long base() {
        return base;
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
        memory.writeLong(base + offset, lo);
        memory.writeLong(base + offset + 8, hi);
    }

    /**
     * @param offset byte offset of a descriptor
     * @return its low word
     */
    public long lo(int offset) {
        return memory.readLong(base + offset);
    }

    /**
     * @param offset byte offset of a descriptor
     * @return its high word
     */
    public long hi(int offset) {
        return memory.readLong(base + offset + 8);
    }
}
