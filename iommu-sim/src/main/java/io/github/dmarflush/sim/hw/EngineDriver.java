package io.github.dmarflush.sim.hw;

/**
 * What makes a unit's {@link QiEngine} run: the clock's part of the hardware. The engine
 * decides what each descriptor does; the driver decides when. {@link EngineThread} runs it on
 * a host thread that spins out each descriptor's latency (the real-thread clock);
 * {@link EventEngine} schedules each descriptor's completion on a simulated clock.
 */
public interface EngineDriver extends AutoCloseable {

    /**
     * The engine may have work: IQT was written, QI enabled, FSTS.IQE cleared, or the engine
     * resumed or single-stepped. Called by the register that changed, on the writer's thread.
     */
    void kick();

    /**
     * One iteration of a CPU's busy wait for the engine inside a driver step
     * ({@code cpu_spinwait()} in {@code dmar_qi_ensure}'s loop). On host threads it pauses
     * (and now and then yields, so a spinning producer cannot starve the engine thread on a
     * small machine); on a simulated clock, where no simulated time can pass inside one step,
     * the engine executes its next ready descriptor at once.
     *
     * @param iteration the iteration's number in this wait, from 1
     */
    default void cpuSpinWait(long iteration) {
        if ((iteration & 63) == 0) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /**
     * Runs a driver step that busy-waits on the engine inside a library call (the sequence
     * wrap in {@code emitWaitSeq}, a spinning {@code waitForSeq}). On host threads the engine
     * runs meanwhile; a simulated clock executes ready descriptors at once for the length of
     * {@code step}, since the step cannot let simulated time pass.
     *
     * @param step the step
     */
    default void whileCpuWaits(Runnable step) {
        step.run();
    }

    /** Stops driving the engine. Descriptors still queued are not executed. */
    @Override
    void close();

    /** Builds a driver for an engine. */
    @FunctionalInterface
    interface Factory {
        /**
         * @param engine the engine to drive
         * @param name the unit's name, for a thread name
         * @return the driver
         */
        EngineDriver create(QiEngine engine, String name);
    }
}
