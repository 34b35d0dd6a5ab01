package io.github.dmarflush.sim;

import io.github.dmarflush.sim.driver.TaskScheduling;
import io.github.dmarflush.sim.hw.EngineDriver;
import io.github.dmarflush.sim.hw.EngineThread;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.RegisterTiming;
import io.github.dmarflush.sim.lock.MutexFactory;

/**
 * When things happen in a {@link SimMachine}: the machine (hardware, driver, GAS, busdma) is
 * the same in both clocks, and the clock supplies the parts that decide timing: the driver's
 * mutexes, the invalidation engine's driver, what runs the QI task, and how long a register
 * access stalls the CPU.
 *
 * <ul>
 *   <li>{@link #HOST_THREADS}: real threads on the host. It checks the library's concurrency
 *       for real (the DMA checker catches any reuse before invalidation), but its figures move
 *       with the host's scheduler and load, and it cannot have more CPUs than the host.</li>
 *   <li>{@code io.github.dmarflush.sim.virt.VirtualClock}: a discrete-event simulation of N
 *       CPUs with FreeBSD's adaptive mutexes and a cost model, on one host thread;
 *       deterministic.</li>
 * </ul>
 */
public interface SimClock {

    /**
     * @param config the machine's configuration
     * @return how the driver's mutexes are made
     */
    MutexFactory mutexes(MachineConfig config);

    /** @return how each unit's invalidation engine is driven */
    EngineDriver.Factory engines();

    /** @return how each unit's QI task is run */
    TaskScheduling tasks();

    /**
     * @param config the machine's configuration
     * @return how long a CPU stalls on a register access
     */
    RegisterTiming registers(MachineConfig config);

    /**
     * @param config the machine's configuration
     * @return the invalidation engine's time per descriptor
     */
    EngineTiming timing(MachineConfig config);

    /**
     * Called once the machine is built (units attached, devices' context entries written).
     *
     * @param machine the machine
     */
    default void machineBuilt(SimMachine machine) {
    }

    /** Real threads: {@code LockstatMutex}, an engine thread per unit, a task queue thread per unit. */
    SimClock HOST_THREADS = new SimClock() {
        @Override
        public MutexFactory mutexes(MachineConfig config) {
            return MutexFactory.lockstat(config.spinNanos());
        }

        @Override
        public EngineDriver.Factory engines() {
            return EngineThread::new;
        }

        @Override
        public TaskScheduling tasks() {
            return TaskScheduling.HOST_THREADS;
        }

        @Override
        public RegisterTiming registers(MachineConfig config) {
            return config.registers();
        }

        @Override
        public EngineTiming timing(MachineConfig config) {
            return config.timing();
        }
    };
}
