package io.github.dmarflush.sim.repro;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.virt.VirtualClock;
import io.github.dmarflush.sim.virt.VirtualTcpMaerts;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.time.Duration;

/**
 * FreeBSD's three measured states as the model runs them: one {@code TCP_MAERTS} stream into
 * one NIC queue, one DMAR unit, one domain.
 */
public enum ModelState {
    /** Before D35557: busdma guards a map's entry list with {@code iodom}; the locked flush list. */
    A(FlushStrategy.LOCKED, true),
    /** After D35557, before D35951: the locked flush list. */
    B(FlushStrategy.LOCKED, false),
    /** After D35951: the lock-free flush list. */
    C(FlushStrategy.FLUSHLIST, false);

    private final FlushStrategy strategy;
    private final boolean busdmaUnderIodom;

    ModelState(FlushStrategy strategy, boolean busdmaUnderIodom) {
        this.strategy = strategy;
        this.busdmaUnderIodom = busdmaUnderIodom;
    }

    /** @return the flush list */
    public FlushStrategy strategy() {
        return strategy;
    }

    /** @return whether busdma's map entry lists are under {@code iodom} */
    public boolean busdmaUnderIodom() {
        return busdmaUnderIodom;
    }

    /** How a state is run: simulated CPUs, the window, the seed. */
    public record Setup(int cpus, Duration warmup, Duration window, long seed) {
        /** @throws IllegalArgumentException if a value is out of range */
        public Setup {
            if (cpus < 1) {
                throw new IllegalArgumentException("cpus must be >= 1, got " + cpus);
            }
        }
    }

    /**
     * Runs the state in virtual time.
     *
     * @param costs the cost model
     * @param setup CPUs, window, seed
     * @return the window's result
     */
    public RunResult run(CostModel costs, Setup setup) {
        VirtualClock clock = new VirtualClock(costs, setup.cpus(), setup.seed());
        MachineConfig mc = MachineConfig.defaults(strategy);
        mc = mc.withMemory(VirtualTcpMaerts.memoryFor(mc.memoryBytes(), costs, 1, 1500));
        try (SimMachine m = new SimMachine(mc, clock)) {
            WorkloadConfig wc = new WorkloadConfig(1, setup.warmup(), setup.window(), 1500, setup.seed());
            return new VirtualTcpMaerts(m, wc, 1, busdmaUnderIodom).run();
        }
    }
}
