package io.github.dmarflush.sim;

import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import io.github.dmarflush.sim.lock.MutexFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One simulated machine: physical memory, one or more DMAR units (hardware and driver), the
 * domains on each unit, and the devices attached to them. Data flows one way:
 * workload → busdma → domain/unit (driver) → hardware → QI task → flush list.
 *
 * <p>Device {@code i} has request id {@code (3 + i / 32):(i % 32).0}, sits behind unit
 * {@code i % units}, and is attached to that unit's domain {@code (i / units) % domainsPerUnit}.
 * Each unit's domains have ids 1, 2, ...; each unit gets its own engine seed
 * ({@code timing.seed + unit index}).
 *
 * <p>Close it to stop the units' engine and task threads.
 */
public final class SimMachine implements AutoCloseable {

    /** The first device's source id, bus 3 device 0 function 0. */
    public static final int NIC_RID = 3 << 8;

    private final MachineConfig config;
    private final SimClock clock;
    private final PhysicalMemory memory;
    private final List<DmarUnit> units = new ArrayList<>();
    private final List<DmarDomain> domains = new ArrayList<>();
    private final int[] deviceRid;
    private final DmarDomain[] deviceDomain;

    /**
     * Builds and starts the machine on host threads ({@link SimClock#HOST_THREADS}).
     *
     * @param config its configuration
     */
    public SimMachine(MachineConfig config) {
        this(config, SimClock.HOST_THREADS);
    }

    /**
     * Builds the machine on {@code clock} and starts it.
     *
     * @param config its configuration
     * @param clock when things happen
     */
    public SimMachine(MachineConfig config, SimClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.memory = new PhysicalMemory(config.memoryBytes());
        MutexFactory mutexes = clock.mutexes(config);
        try {
            for (int u = 0; u < config.units(); u++) {
                EngineTiming t = clock.timing(config);
                EngineTiming seeded = new EngineTiming(t.iotlbNanos(), t.contextNanos(), t.iecNanos(), t.waitNanos(),
                        t.jitterNanos(), t.seed() + u);
                DmarHardware hw = new DmarHardware("dmar" + u, memory, config.iotlbEntries(), seeded, clock.engines());
                hw.setRegisterTiming(clock.registers(config));
                DmarUnit unit = new DmarUnit(hw, new DmarUnit.Options(config.strategy(), config.mode(), config.qs(),
                        config.spinNanos(), config.hooks()), mutexes, clock.tasks());
                units.add(unit);
                for (int d = 0; d < config.domainsPerUnit(); d++) {
                    domains.add(new DmarDomain(unit, d + 1, config.pageTableLevels(), config.superpages(),
                            config.batchCoalesce(), mutexes));
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.deviceRid = new int[config.devices()];
        this.deviceDomain = new DmarDomain[config.devices()];
        for (int i = 0; i < config.devices(); i++) {
            int u = i % config.units();
            int d = (i / config.units()) % config.domainsPerUnit();
            deviceRid[i] = ((3 + i / 32) << 8) | ((i % 32) << 3);
            deviceDomain[i] = domains.get(u * config.domainsPerUnit() + d);
            deviceDomain[i].attach(deviceRid[i]);
        }
        clock.machineBuilt(this);
    }

    /** @return the clock the machine runs on */
    public SimClock clock() {
        return clock;
    }

    /** @return the configuration */
    public MachineConfig config() {
        return config;
    }

    /** @return physical memory */
    public PhysicalMemory memory() {
        return memory;
    }

    /** @return the units */
    public List<DmarUnit> units() {
        return List.copyOf(units);
    }

    /** @return every domain, unit by unit */
    public List<DmarDomain> domains() {
        return List.copyOf(domains);
    }

    /** @return the first unit's hardware */
    public DmarHardware hardware() {
        return units.get(0).hardware();
    }

    /** @return the first unit's driver */
    public DmarUnit unit() {
        return units.get(0);
    }

    /** @return the first device's domain */
    public DmarDomain domain() {
        return deviceDomain[0];
    }

    /** @return the number of devices */
    public int devices() {
        return deviceRid.length;
    }

    /**
     * @param device device index
     * @return its request id
     */
    public int requestId(int device) {
        return deviceRid[device];
    }

    /**
     * @param device device index
     * @return its domain
     */
    public DmarDomain domainOf(int device) {
        return deviceDomain[device];
    }

    /**
     * @param device device index
     * @return the hardware of the unit the device sits behind
     */
    public DmarHardware hardwareOf(int device) {
        return deviceDomain[device].unit().hardware();
    }

    /**
     * A busdma path for a device.
     *
     * @param device device index
     * @param driverFrames the driver functions that unload its maps (for the stack aggregation)
     * @return the path
     */
    public BusDma busdma(int device, String... driverFrames) {
        return new BusDma(deviceDomain[device], deviceRid[device], driverFrames);
    }

    /** @return a busdma path for the first device, unloads attributed to {@code ixl_rxeof} */
    public BusDma busdma() {
        return busdma(0, "ixl_rxeof");
    }

    @Override
    public void close() {
        for (DmarUnit u : units) {
            u.close();
        }
    }
}
