package io.github.dmarflush.sim;

import io.github.dmarflush.sim.driver.FlushStrategy;

/**
 * How to build a simulated machine.
 *
 * @param strategy the flush list the driver uses
 * @param qs IQA queue size: {@code 2^qs} 4 KiB pages of descriptors (0..7)
 * @param iotlbEntries IOTLB slots, a power of two
 * @param pageTableLevels 3, 4 or 5
 * @param descriptorLatencyNanos extra time the hardware engine spends per descriptor, ns
 * @param spinNanos how long a contended adaptive mutex spins before it blocks, ns
 * @param batchCoalesce interrupting wait descriptor every this many unloaded entries of a
 *     batch, and on the last
 * @param memoryBytes simulated physical memory, bytes
 */
public record MachineConfig(
        FlushStrategy strategy,
        int qs,
        int iotlbEntries,
        int pageTableLevels,
        long descriptorLatencyNanos,
        long spinNanos,
        int batchCoalesce,
        int memoryBytes) {

    /** FreeBSD's defaults where it has them (queue of 8 pages, batch coalesce 100). */
    public static MachineConfig defaults(FlushStrategy strategy) {
        return new MachineConfig(strategy, 3, 512, 4, 0, 10_000, 100, 256 << 20);
    }

    /**
     * @param s another strategy
     * @return this configuration with {@code s}
     */
    public MachineConfig withStrategy(FlushStrategy s) {
        return new MachineConfig(s, qs, iotlbEntries, pageTableLevels, descriptorLatencyNanos, spinNanos,
                batchCoalesce, memoryBytes);
    }
}
