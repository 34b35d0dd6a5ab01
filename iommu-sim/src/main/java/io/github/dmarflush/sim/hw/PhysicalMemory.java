package io.github.dmarflush.sim.hw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

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

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

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

    /**
     * Reads {@code len} bytes (a device's DMA read, or a CPU's read of its buffer).
     *
     * @param pa physical address
     * @param dst destination
     * @param off offset in {@code dst}
     * @param len bytes
     */
    public void read(long pa, byte[] dst, int off, int len) {
        System.arraycopy(bytes, (int) pa, dst, off, len);
    }

    /**
     * Plain little-endian 64-bit load, as the hardware fetches a descriptor word. Ordering
     * comes from the register access that precedes it (IQT is volatile).
     *
     * @param pa physical address, 8-byte aligned
     * @return the word
     */
    public long readLong(long pa) {
        return (long) LONGS.get(bytes, (int) pa);
    }

    /**
     * Plain little-endian 64-bit store, as software writes a descriptor word.
     *
     * @param pa physical address, 8-byte aligned
     * @param v the word
     */
    public void writeLong(long pa, long v) {
        LONGS.set(bytes, (int) pa, v);
    }

    /**
     * Volatile little-endian 32-bit store: a status write that software polls.
     *
     * @param pa physical address, 4-byte aligned
     * @param v the value
     */
    public void writeIntVolatile(long pa, int v) {
        INTS.setVolatile(bytes, (int) pa, v);
    }

    /**
     * Volatile little-endian 32-bit load.
     *
     * @param pa physical address, 4-byte aligned
     * @return the value
     */
    public int readIntVolatile(long pa) {
        return (int) INTS.getVolatile(bytes, (int) pa);
    }

    /**
     * @param pa a physical address
     * @param len a length
     * @return whether {@code [pa, pa + len)} lies inside this memory
     */
    public boolean contains(long pa, long len) {
        return pa >= 0 && len >= 0 && pa + len <= bytes.length;
    }

    /** @return the size in bytes */
    public long size() {
        return bytes.length;
    }
}
