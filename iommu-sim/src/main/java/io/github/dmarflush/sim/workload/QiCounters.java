package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.QiTaskRunner;
import io.github.dmarflush.sim.hw.DmarHardware;

/**
 * Queued-invalidation counters of a machine, summed over its units: what the hardware
 * executed, what the driver and the QI task did. Take one snapshot before a window and one
 * after, and subtract.
 *
 * @param iotlbDescriptors IOTLB invalidation descriptors executed
 * @param waitDescriptors wait descriptors executed
 * @param contextDescriptors context-cache invalidation descriptors executed
 * @param iecDescriptors interrupt-entry-cache invalidation descriptors executed
 * @param interrupts completion interrupts raised
 * @param iwcSets times ICS.IWC went from 0 to 1
 * @param iwcClears times the QI task found ICS.IWC set and cleared it
 * @param taskRuns QI task passes
 * @param releasedFirstDrain entries released by the task's first drain
 * @param releasedSecondDrain entries released by the drain after clearing IWC
 * @param queueFull times a producer found the ring full and waited
 * @param emptyUnloads empty entries unloaded (nothing queued)
 * @param unloadedEntries non-empty entries unloaded
 * @param seqWraps wait-sequence wraps to a new generation
 * @param dmaFaults DMA faults recorded by the units
 * @param queueErrors invalidation-queue errors (FSTS.IQE)
 * @param rangesFreed IOVA ranges given back to the allocator
 */
public record QiCounters(long iotlbDescriptors, long waitDescriptors, long contextDescriptors, long iecDescriptors,
        long interrupts, long iwcSets, long iwcClears, long taskRuns, long releasedFirstDrain,
        long releasedSecondDrain, long queueFull, long emptyUnloads, long unloadedEntries, long seqWraps,
        long dmaFaults, long queueErrors, long rangesFreed) {

    /**
     * @param m a machine
     * @return its counters now
     */
    public static QiCounters capture(SimMachine m) {
        long[] v = new long[17];
        for (DmarUnit u : m.units()) {
            DmarHardware hw = u.hardware();
            v[0] += hw.iotlbDescriptors();
            v[1] += hw.waitDescriptors();
            v[2] += hw.contextDescriptors();
            v[3] += hw.iecDescriptors();
            v[4] += hw.interrupts();
            v[5] += hw.iwcSets();
            QiTaskRunner.TaskCounters t = u.taskRunner().counters();
            v[6] += t.iwcClears();
            v[8] += t.releasedByFirstDrain();
            v[9] += t.releasedBySecondDrain();
            v[7] += u.taskRunner().runs();
            v[10] += u.queueFull();
            v[13] += u.sequencer().generationWraps();
            v[14] += hw.faults();
            v[15] += hw.queueErrors();
        }
        for (DmarDomain d : m.domains()) {
            v[11] += d.emptyUnloads();
            v[12] += d.unloadedEntries();
            v[16] += d.rangesFreed();
        }
        return new QiCounters(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
                v[13], v[14], v[15], v[16]);
    }

    /**
     * @param o an earlier snapshot
     * @return this minus {@code o}
     */
    public QiCounters minus(QiCounters o) {
        return new QiCounters(iotlbDescriptors - o.iotlbDescriptors, waitDescriptors - o.waitDescriptors,
                contextDescriptors - o.contextDescriptors, iecDescriptors - o.iecDescriptors,
                interrupts - o.interrupts, iwcSets - o.iwcSets, iwcClears - o.iwcClears, taskRuns - o.taskRuns,
                releasedFirstDrain - o.releasedFirstDrain, releasedSecondDrain - o.releasedSecondDrain,
                queueFull - o.queueFull, emptyUnloads - o.emptyUnloads, unloadedEntries - o.unloadedEntries,
                seqWraps - o.seqWraps, dmaFaults - o.dmaFaults, queueErrors - o.queueErrors,
                rangesFreed - o.rangesFreed);
    }
}
