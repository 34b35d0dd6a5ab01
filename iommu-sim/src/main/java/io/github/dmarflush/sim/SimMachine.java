package io.github.dmarflush.sim;

import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.Objects;

/**
 * One simulated machine: physical memory, one DMAR unit (hardware and driver), one domain
 * and one device (a NIC) behind it, and the busdma path for that device. Data flows one way:
 * workload → busdma → unit (driver) → hardware → QI task → flush list.
 *
 * <p>Close it to stop the unit's engine and task threads.
 */
public final class SimMachine implements AutoCloseable {

    /** The NIC's source id, bus 3 device 0 function 0. */
    public static final int NIC_RID = 3 << 8;

    private final MachineConfig config;
    private final PhysicalMemory memory;
    private final DmarHardware hardware;
    private final DmarUnit unit;
    private final DmarDomain domain;
    private final BusDma busdma;

    /**
     * Builds and starts the machine.
     *
     * @param config its configuration
     */
    public SimMachine(MachineConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.memory = new PhysicalMemory(config.memoryBytes());
        this.hardware = new DmarHardware("dmar0", memory, config.iotlbEntries(), config.descriptorLatencyNanos());
        this.unit = new DmarUnit(hardware, config.strategy(), config.qs(), config.spinNanos());
        this.domain = new DmarDomain(1, config.pageTableLevels(), config.strategy(), config.spinNanos());
        hardware.setContext(NIC_RID, domain.domainId(), domain.pageTable());
        this.busdma = new BusDma(unit, domain, config.batchCoalesce());
    }

    /** @return the configuration */
    public MachineConfig config() {
        return config;
    }

    /** @return physical memory */
    public PhysicalMemory memory() {
        return memory;
    }

    /** @return the unit's hardware */
    public DmarHardware hardware() {
        return hardware;
    }

    /** @return the unit's driver */
    public DmarUnit unit() {
        return unit;
    }

    /** @return the NIC's domain */
    public DmarDomain domain() {
        return domain;
    }

    /** @return the NIC's busdma path */
    public BusDma busdma() {
        return busdma;
    }

    @Override
    public void close() {
        unit.close();
    }
}
