package io.github.dmarflush.sim;

import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.RegisterTiming;
import java.util.Objects;

/**
 * How to build a simulated machine.
 *
 * @param strategy the flush list the driver uses
 * @param mode deferred (flush list) or strict (synchronous) unloads
 * @param qs IQA queue size: {@code 2^qs} 4 KiB pages of descriptors (0..7)
 * @param iotlbEntries IOTLB slots per unit, a power of two
 * @param pageTableLevels 3, 4 or 5 (39-, 48-, 57-bit IOVA spaces)
 * @param superpages whether domains may map 2 MiB and 1 GiB pages
 * @param timing the hardware engine's time per descriptor
 * @param registers how long a CPU stalls on a register access (uncached MMIO)
 * @param spinNanos how long a contended adaptive mutex spins before it blocks, ns
 * @param batchCoalesce interrupting wait descriptor every this many unloaded entries, and on
 *     the last of each unload
 * @param memoryBytes simulated physical memory, bytes
 * @param units DMAR units, at least 1
 * @param domainsPerUnit domains on each unit, at least 1
 * @param devices devices (request ids), spread over units and domains round robin; at least 1
 * @param hooks the library classes the units use (broken variants in tests only)
 */
public record MachineConfig(
        FlushStrategy strategy,
        InvalidationMode mode,
        int qs,
        int iotlbEntries,
        int pageTableLevels,
        boolean superpages,
        EngineTiming timing,
        RegisterTiming registers,
        long spinNanos,
        int batchCoalesce,
        int memoryBytes,
        int units,
        int domainsPerUnit,
        int devices,
        UnitHooks hooks) {

    /**
     * @throws IllegalArgumentException if a count is out of range
     */
    public MachineConfig {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(timing, "timing");
        Objects.requireNonNull(registers, "registers");
        Objects.requireNonNull(hooks, "hooks");
        if (units < 1 || domainsPerUnit < 1 || devices < 1) {
            throw new IllegalArgumentException("units, domains per unit and devices must be >= 1");
        }
    }

    /**
     * FreeBSD's defaults where it has them (queue of 8 pages, batch coalesce 100), one unit,
     * one domain, one device, 4-level tables with superpages, 256 MiB of memory.
     *
     * @param strategy the flush list
     * @return the configuration
     */
    public static MachineConfig defaults(FlushStrategy strategy) {
        return new MachineConfig(strategy, InvalidationMode.DEFERRED, 3, 512, 4, true, EngineTiming.NONE, RegisterTiming.DEFAULT, 10_000,
                100, 256 << 20, 1, 1, 1, UnitHooks.LIBRARY);
    }

    /**
     * @param s another strategy
     * @return this configuration with {@code s}
     */
    public MachineConfig withStrategy(FlushStrategy s) {
        return new MachineConfig(s, mode, qs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                batchCoalesce, memoryBytes, units, domainsPerUnit, devices, hooks);
    }

    /**
     * @param m another mode
     * @return this configuration with {@code m}
     */
    public MachineConfig withMode(InvalidationMode m) {
        return new MachineConfig(strategy, m, qs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                batchCoalesce, memoryBytes, units, domainsPerUnit, devices, hooks);
    }

    /**
     * @param newQs another queue size
     * @param newBatch another batch coalesce
     * @return this configuration with those
     */
    public MachineConfig withQueue(int newQs, int newBatch) {
        return new MachineConfig(strategy, mode, newQs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                newBatch, memoryBytes, units, domainsPerUnit, devices, hooks);
    }

    /**
     * @param u units
     * @param d domains per unit
     * @param dev devices
     * @return this configuration with that topology
     */
    public MachineConfig withTopology(int u, int d, int dev) {
        return new MachineConfig(strategy, mode, qs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                batchCoalesce, memoryBytes, u, d, dev, hooks);
    }

    /**
     * @param h the hooks
     * @return this configuration with {@code h}
     */
    public MachineConfig withHooks(UnitHooks h) {
        return new MachineConfig(strategy, mode, qs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                batchCoalesce, memoryBytes, units, domainsPerUnit, devices, h);
    }

    /**
     * @param levels page-table levels
     * @param sp superpages
     * @return this configuration with that paging
     */
    public MachineConfig withPaging(int levels, boolean sp) {
        return new MachineConfig(strategy, mode, qs, iotlbEntries, levels, sp, timing, registers, spinNanos,
                batchCoalesce, memoryBytes, units, domainsPerUnit, devices, hooks);
    }

    /**
     * @param bytes simulated physical memory, bytes
     * @return this configuration with that much memory
     */
    public MachineConfig withMemory(int bytes) {
        return new MachineConfig(strategy, mode, qs, iotlbEntries, pageTableLevels, superpages, timing, registers, spinNanos,
                batchCoalesce, bytes, units, domainsPerUnit, devices, hooks);
    }

    /** @return the run's label in reports: the strategy, or {@code strict} */
    public String label() {
        return mode == InvalidationMode.STRICT ? "strict" : strategy.cliName();
    }
}
