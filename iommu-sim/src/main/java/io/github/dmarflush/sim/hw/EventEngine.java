package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.vtime.Event;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * The virtual-time clock's engine driver: the engine executes descriptors one after another,
 * each completing its latency after the later of its publication and the previous
 * descriptor's completion; a descriptor's effects (IOTLB invalidation, status write, ICS.IWC
 * and the interrupt) happen at its completion.
 *
 * <p>In <em>immediate</em> mode every ready descriptor is executed at once, in simulated time
 * zero: for the unit's set-up (the global invalidations at attach, before the clock runs) and
 * for the rare waits a library call spins on inside one step (the sequence wrap), which
 * cannot let simulated time pass. {@link #fastForwards()} counts the descriptors executed
 * that way while the clock runs.
 *
 * <p>Not thread-safe: it lives on the simulation's one host thread.
 */
public final class EventEngine implements EngineDriver {

    private final QiEngine engine;
    private final EventLoop loop;
    private final SplittableRandom jitter;
    private final LongUnaryOperator vary;
    private boolean immediate;
    private boolean closed;
    private long fastForwards;
    private final Event done = new Event() {
        @Override
        protected void fire() {
            engine.executeNext();
            startNext();
        }
    };

    /**
     * @param engine the engine
     * @param loop the simulated clock
     * @param vary the time a descriptor of a given latency really takes (the model's variation)
     */
    public EventEngine(QiEngine engine, EventLoop loop, LongUnaryOperator vary) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.vary = Objects.requireNonNull(vary, "vary");
        this.jitter = engine.newJitter();
    }

    /**
     * A factory for units on {@code loop}, starting in immediate mode (for the unit's set-up).
     *
     * @param loop the simulated clock
     * @param vary the time a descriptor of a given latency really takes
     * @return the factory
     */
    public static EngineDriver.Factory on(EventLoop loop, LongUnaryOperator vary) {
        return (engine, name) -> {
            EventEngine e = new EventEngine(engine, loop, vary);
            e.immediate = true;
            return e;
        };
    }

    @Override
    public void kick() {
        if (closed) {
            return;
        }
        if (immediate) {
            runReady();
        } else if (!done.isScheduled()) {
            startNext();
        }
    }

    private void startNext() {
        if (!closed && engine.ready()) {
            long latency = engine.nextLatency(jitter);
            loop.scheduleIn(done, latency > 0 ? vary.applyAsLong(latency) : 0);
        }
    }

    private void runReady() {
        if (done.isScheduled()) {
            loop.cancel(done); // its descriptor runs now instead
        }
        while (engine.ready()) {
            engine.nextLatency(jitter); // keep the jitter stream aligned with the scheduled mode
            engine.executeNext();
            fastForwards++;
        }
    }

    /**
     * Switches between immediate mode and scheduled mode.
     *
     * @param on true for immediate
     */
    public void setImmediate(boolean on) {
        this.immediate = on;
        if (on) {
            runReady();
        } else {
            fastForwards = 0;
            startNext();
        }
    }

    /** {@inheritDoc} Here: executes the next ready descriptor at once (a fast-forward). */
    @Override
    public void cpuSpinWait(long iteration) {
        if (!closed && !engine.ready()) {
            // On host threads this CPU would spin forever; here it would hang the simulation.
            throw new IllegalStateException("a CPU waits for the invalidation engine, which cannot make progress"
                    + " (QI disabled, FSTS.IQE set, or halted)");
        }
        if (!closed) {
            if (done.isScheduled()) {
                loop.cancel(done);
            }
            engine.nextLatency(jitter);
            engine.executeNext();
            fastForwards++;
            if (!immediate) {
                startNext();
            }
        }
    }

    /** {@inheritDoc} Here: runs {@code step} with the engine in immediate mode. */
    @Override
    public void whileCpuWaits(Runnable step) {
        boolean was = immediate;
        immediate = true;
        try {
            step.run();
        } finally {
            immediate = was;
            if (!was) {
                startNext();
            }
        }
    }

    /** @return descriptors executed in immediate mode since scheduled mode was last entered */
    public long fastForwards() {
        return fastForwards;
    }

    @Override
    public void close() {
        closed = true;
        loop.cancel(done);
    }
}
