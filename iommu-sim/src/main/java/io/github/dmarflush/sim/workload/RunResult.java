package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.driver.InvalidationStacks;
import java.util.List;

/**
 * What one measured run produced. Counters cover the measured window only.
 *
 * @param workload the workload's name, e.g. {@code TCP_MAERTS}
 * @param machine the machine's configuration (strategy, mode, topology, queue)
 * @param config the workload parameters
 * @param elapsedNanos the measured window's real length, ns
 * @param ops operations completed in the window (packets, requests, trace events)
 * @param opUnit what an operation is, plural: {@code packets}, {@code requests}, {@code events}
 * @param bytes payload bytes transferred by DMA in the window
 * @param locks contention per lock and call site
 * @param qi queued-invalidation counters
 * @param stacks invalidation requests per call stack
 * @param integrityErrors operations whose payload did not arrive intact (must be 0)
 * @param unmapsNotMapped unmaps of an IOVA that was not mapped (trace replay; reported, not fatal)
 * @param notes things worth telling that are not failures (at most a few lines)
 * @param problems end-of-run check failures; empty for a clean run
 * @param clock the clock the figures come from
 */
public record RunResult(
        String workload,
        MachineConfig machine,
        WorkloadConfig config,
        long elapsedNanos,
        long ops,
        String opUnit,
        long bytes,
        List<LockSiteSample> locks,
        QiCounters qi,
        List<InvalidationStacks.Row> stacks,
        long integrityErrors,
        long unmapsNotMapped,
        List<String> notes,
        List<String> problems,
        ClockInfo clock) {

    /** @return the run's label: the strategy's name, or {@code strict} */
    public String label() {
        return machine.label();
    }

    /** @return the window in seconds */
    public double seconds() {
        return elapsedNanos / 1e9;
    }

    /** @return packets (or other operations) in the window */
    public long packets() {
        return ops;
    }

    /** @return simulated DMA throughput, Mbit/s */
    public double mbitPerSecond() {
        return bytes * 8 / 1e6 / seconds();
    }

    /** @return operations per second */
    public double opsPerSecond() {
        return ops / seconds();
    }

    /**
     * @param lock a lock name
     * @return spin events per second at that lock, all call sites
     */
    public double spinEventsPerSecond(String lock) {
        return locks.stream().filter(s -> s.lock().equals(lock)).mapToLong(LockSiteSample::spinEvents).sum() / seconds();
    }

    /**
     * @param lock a lock name
     * @return block events per second at that lock, all call sites
     */
    public double blockEventsPerSecond(String lock) {
        return locks.stream().filter(s -> s.lock().equals(lock)).mapToLong(LockSiteSample::blockEvents).sum() / seconds();
    }

    /** @return DMA faults in the window */
    public long dmaFaults() {
        return qi.dmaFaults();
    }

    /** @return wait descriptors executed in the window */
    public long waitDescriptors() {
        return qi.waitDescriptors();
    }

    /** @return completion interrupts in the window */
    public long interrupts() {
        return qi.interrupts();
    }

    /** @return whether every end-of-run check passed */
    public boolean clean() {
        return problems.isEmpty() && qi.dmaFaults() == 0 && integrityErrors == 0;
    }
}
