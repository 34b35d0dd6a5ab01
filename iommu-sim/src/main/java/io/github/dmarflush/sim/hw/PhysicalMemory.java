package io.github.dmarflush.sim.hw;

/**
 * Simulated physical memory: a byte array addressed from 0. Devices write into it through
 * the IOMMU's translation; CPUs read their buffers directly. Regions are handed out once
 * by {@link #allocate} (a bump allocator: buffers live for the whole run).
 *
 * <p>Thread-safety: {@link #allocate} is synchronized; reads and writes are plain, and the
 * callers order them (a CPU reads a buffer only after the DMA into it, in the same thread,
 * or after a happens-before edge).
 */
public final class PhysicalMemory {

    /** Page size, bytes. */
    public static final int PAGE_SIZE = 4096;

    private final byte[] bytes;
    private long next = PAGE_SIZE; // keep physical page 0 unused, like a real machine

    /**
     * @param size bytes of memory, at most {@code Integer.MAX_VALUE - 8}
     */
    public PhysicalMemory(int size) {
        this.bytes = new byte[size];
    }

    /**
     * Reserves a page-aligned region.
     *
     * @param size bytes
     * @return its physical address
     * @throws IllegalStateException if memory is exhausted
     */
    public synchronized long allocate(long size) {
        long pa = next;
        long end = pa + ((size + PAGE_SIZE - 1) & -PAGE_SIZE);
        if (end > bytes.length) {
            throw new IllegalStateException("simulated physical memory exhausted: need " + end
                    + " bytes, have " + bytes.length);
        }
        next = end;
        return pa;
    }

    /**
     * @param pa physical address
     * @param src source bytes
     * @param off offset in {@code src}
     * @param len bytes to write
     */
    public void write(long pa, byte[] src, int off, int len) {
        System.arraycopy(src, off, bytes, (int) pa, len);
    }

    /**
     * @param pa physical address
     * @return the byte there
     */
    public byte read(long pa) {
        return bytes[(int) pa];
    }

    /** @return the size in bytes */
    public long size() {
        return bytes.length;
    }
}
