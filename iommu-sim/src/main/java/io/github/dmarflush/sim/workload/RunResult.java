package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.driver.FlushStrategy;
import java.util.List;

/**
 * What one measured run produced. Counters cover the measured window only.
 *
 * @param workload the workload's name, e.g. {@code TCP_MAERTS}
 * @param strategy the flush strategy
 * @param config the workload parameters
 * @param elapsedNanos the measured window's real length, ns
 * @param packets packets received (map, DMA, unmap, check) in the window
 * @param bytes payload bytes transferred by DMA in the window
 * @param locks contention per lock and call site
 * @param interrupts completion interrupts raised
 * @param iwcSets times ICS.IWC went from 0 to 1
 * @param iotlbDescriptors IOTLB invalidation descriptors processed by the hardware
 * @param waitDescriptors wait descriptors processed
 * @param taskRuns QI task passes
 * @param releasedFirstDrain entries released by the task's first drain
 * @param releasedSecondDrain entries released by the drain after clearing IWC
 * @param queueFull times the queue was found full
 * @param dmaFaults DMA faults (must be 0)
 * @param integrityErrors packets whose payload did not arrive intact (must be 0)
 * @param problems end-of-run check failures; empty for a clean run
 */
public record RunResult(
        String workload,
        FlushStrategy strategy,
        WorkloadConfig config,
        long elapsedNanos,
        long packets,
        long bytes,
        List<LockSiteSample> locks,
        long interrupts,
        long iwcSets,
        long iotlbDescriptors,
        long waitDescriptors,
        long taskRuns,
        long releasedFirstDrain,
        long releasedSecondDrain,
        long queueFull,
        long dmaFaults,
        long integrityErrors,
        List<String> problems) {

    /** @return the window in seconds */
    public double seconds() {
        return elapsedNanos / 1e9;
    }

    /** @return simulated DMA throughput, Mbit/s */
    public double mbitPerSecond() {
        return bytes * 8 / 1e6 / seconds();
    }

    /** @return map+unmap pairs per second */
    public double mapUnmapPerSecond() {
        return packets / seconds();
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

    /** @return whether every end-of-run check passed */
    public boolean clean() {
        return problems.isEmpty() && dmaFaults == 0 && integrityErrors == 0;
    }
}
