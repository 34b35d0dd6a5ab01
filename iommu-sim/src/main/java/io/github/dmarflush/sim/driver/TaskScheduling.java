package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.Reclaimer;

/**
 * How a unit's QI task is run: the clock's part of the driver. The flush list, the sequencer
 * and the task's steps are the same in both clocks; what differs is what carries the task
 * (a host thread, or a simulated thread whose lock acquisitions take simulated time) and
 * therefore when the drain's reclamation callbacks may do their work.
 */
public interface TaskScheduling {

    /**
     * The reclaimer the unit's flush list calls from its drain.
     *
     * @param direct frees the entry's IOVA space under {@code iodom} and recycles the entry,
     *     at once
     * @return {@code direct}, or a reclaimer that hands the work to the task's own steps
     */
    Reclaimer<IommuMapEntry> reclaimer(Reclaimer<IommuMapEntry> direct);

    /**
     * Starts what runs the unit's QI task and connects the unit's completion interrupt to it.
     *
     * @param unit the unit, fully built
     * @return the runner
     */
    QiTaskRunner start(DmarUnit unit);

    /** Host threads: a {@link QiTaskQueue} running the unit's task, and the direct reclaimer. */
    TaskScheduling HOST_THREADS = new TaskScheduling() {
        @Override
        public Reclaimer<IommuMapEntry> reclaimer(Reclaimer<IommuMapEntry> direct) {
            return direct;
        }

        @Override
        public QiTaskRunner start(DmarUnit unit) {
            QiTaskQueue q = new QiTaskQueue(unit.hardware().name() + " qi taskq", unit.task());
            unit.hardware().setInterruptHandler(q::enqueue); // dmar_qi_intr
            return q;
        }
    };
}
