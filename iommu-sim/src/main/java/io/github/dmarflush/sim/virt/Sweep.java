package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Runs {@code TCP_MAERTS} in virtual time for each machine configuration (strategy) and each
 * simulated CPU count: one fresh machine and one fresh clock per point, so points do not
 * influence each other and any point can be reproduced alone.
 */
public final class Sweep {

    /**
     * What a sweep point ran and how long it took the host, for stderr: never part of a report.
     *
     * @param result the point's result
     * @param events simulation events fired
     * @param hostNanos host time the point took, ns
     */
    public record Point(RunResult result, long events, long hostNanos) {
    }

    private final CostModel costs;
    private final WorkloadConfig workload;
    private final Integer streams;

    /**
     * @param costs the cost model
     * @param workload warm-up, window, packet size, seed
     * @param streams receive streams per point, or null for one per simulated CPU
     */
    public Sweep(CostModel costs, WorkloadConfig workload, Integer streams) {
        this.costs = Objects.requireNonNull(costs, "costs");
        this.workload = Objects.requireNonNull(workload, "workload");
        this.streams = streams;
    }

    /**
     * @param cpus simulated CPUs
     * @return the streams a point with {@code cpus} CPUs runs
     */
    public int streamsFor(int cpus) {
        return streams != null ? streams : cpus;
    }

    /**
     * Runs one point.
     *
     * @param machine the machine's configuration (strategy, topology, queue)
     * @param cpus simulated CPUs
     * @return the point
     */
    public Point run(MachineConfig machine, int cpus) {
        long t0 = System.nanoTime();
        int s = streamsFor(cpus);
        VirtualClock clock = new VirtualClock(costs, cpus, workload.seed());
        int memory = VirtualTcpMaerts.memoryFor(machine.memoryBytes(), costs, s, workload.packetSize());
        try (SimMachine m = new SimMachine(machine.withMemory(memory), clock)) {
            RunResult r = new VirtualTcpMaerts(m, workload, s, false).run();
            return new Point(r, clock.loop().eventsFired(), System.nanoTime() - t0);
        }
    }

    /**
     * Runs every CPU count for every machine configuration, CPU count by CPU count.
     *
     * @param machines the configurations (one per strategy)
     * @param cpus the CPU counts
     * @param done told each point as it finishes
     * @return the results, CPU count by CPU count, configurations in order within each
     */
    public List<RunResult> runAll(List<MachineConfig> machines, List<Integer> cpus, Consumer<Point> done) {
        List<RunResult> out = new ArrayList<>();
        for (int n : cpus) {
            for (MachineConfig mc : machines) {
                Point p = run(mc, n);
                done.accept(p);
                out.add(p.result());
            }
        }
        return out;
    }
}
