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
