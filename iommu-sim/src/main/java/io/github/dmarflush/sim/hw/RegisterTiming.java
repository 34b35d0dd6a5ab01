package io.github.dmarflush.sim.hw;

/**
 * How long a CPU stalls on an access to the unit's registers. DMAR registers are uncached
 * memory-mapped I/O: a read is a round trip to the root complex, and even a write holds the
 * issuing CPU longer than a cached store. In a driver these stalls sit inside the unit lock
 * ({@code dmar_qi_advance_tail} writes IQT under {@code dmarhw}, {@code dmar_qi_ensure}
 * reads IQH under it), so they set how long the lock is held, and with it how much the QI
 * task's per-entry locking in the pre-2022 design costs. The CPU busy-waits for the time.
 *
 * <p>The defaults, 300 ns per read and 100 ns per write, are assumptions of the model, in the
 * range usually quoted for uncached MMIO on x86 servers; measure your own hardware and pass
 * {@code --mmio read=N,write=N}.
 *
 * @param readNanos stall per register read, ns
 * @param writeNanos stall per register write, ns
 */
public record RegisterTiming(long readNanos, long writeNanos) {

    /** The model's default: 300 ns per read, 100 ns per write. */
    public static final RegisterTiming DEFAULT = new RegisterTiming(300, 100);

    /** Free register access (the first simulator slice's behaviour). */
    public static final RegisterTiming NONE = new RegisterTiming(0, 0);

    /**
     * @throws IllegalArgumentException if a time is negative
     */
    public RegisterTiming {
        if (readNanos < 0 || writeNanos < 0) {
            throw new IllegalArgumentException("register access times must be >= 0 ns");
        }
    }

    /** Busy-waits for a read's stall. */
    void read() {
        stall(readNanos);
    }

    /** Busy-waits for a write's stall. */
    void write() {
        stall(writeNanos);
    }

    private static void stall(long nanos) {
        if (nanos > 0) {
            long until = System.nanoTime() + nanos;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public String toString() {
        return "read=" + readNanos + "ns write=" + writeNanos + "ns";
    }
}
