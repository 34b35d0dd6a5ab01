package io.github.dmarflush.sim.hw;

import io.github.dmarflush.sim.vtime.Event;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * The virtual-time clock's engine driver. Descriptors complete in ring order, each its latency
 * after it started; a descriptor starts when it is published (IQT written past it), but not
 * sooner than {@code occupancy} ns after the previous one started, and completes no sooner than
 * the previous one. With no occupancy the engine overlaps descriptors (its latency does not
 * limit how many it completes per second); with an occupancy as long as the latency it works
 * on one at a time. A descriptor's effects (IOTLB invalidation, status write, ICS.IWC and the
 * interrupt) happen at its completion.
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
    private final long occupancy;
    /** IQT values as published, and when: the descriptors up to each were published at its time. */
    private final ArrayDeque<long[]> publications = new ArrayDeque<>();
    private long lastTail = -1;
    private long lastStart = Long.MIN_VALUE / 2;
    private boolean immediate;
    private boolean closed;
    private long fastForwards;
    private final Event done = new Event() {
        @Override
        protected void fire() {
            execute();
            startNext();
        }
    };

    /**
     * @param engine the engine
     * @param loop the simulated clock
     * @param vary the time a descriptor of a given latency really takes (the model's variation)
     * @param occupancy the least time between the starts of two descriptors, ns, 0 or more
     */
    public EventEngine(QiEngine engine, EventLoop loop, LongUnaryOperator vary, long occupancy) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.vary = Objects.requireNonNull(vary, "vary");
        if (occupancy < 0) {
            throw new IllegalArgumentException("engine occupancy must be >= 0 ns, got " + occupancy);
        }
        this.occupancy = occupancy;
        this.jitter = engine.newJitter();
    }

    /**
     * A factory for units on {@code loop}, starting in immediate mode (for the unit's set-up).
     *
     * @param loop the simulated clock
     * @param vary the time a descriptor of a given latency really takes
     * @param occupancy the least time between the starts of two descriptors, ns
     * @return the factory
     */
    public static EngineDriver.Factory on(EventLoop loop, LongUnaryOperator vary, long occupancy) {
        return (engine, name) -> {
            EventEngine e = new EventEngine(engine, loop, vary, occupancy);
            e.immediate = true;
            return e;
        };
    }

    @Override
    public void kick() {
        if (closed) {
            return;
        }
        long tail = engine.tail();
        if (tail != lastTail) {
            publications.add(new long[] {tail, loop.now()});
            lastTail = tail;
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
            // A publication whose tail is IQH covers nothing left: the head descriptor was
            // published by the first one after it.
            long head = engine.head();
            while (!publications.isEmpty() && publications.peekFirst()[0] == head) {
                publications.pollFirst();
            }
            long published = publications.isEmpty() ? loop.now() : publications.peekFirst()[1];
            long start = Math.max(published, lastStart + occupancy);
            lastStart = start;
            long end = start + (latency > 0 ? vary.applyAsLong(latency) : 0);
            loop.schedule(done, Math.max(loop.now(), end));
        }
    }

    /** Executes the descriptor at IQH and forgets the publications it has passed. */
    private void execute() {
        engine.executeNext();
        long head = engine.head();
        while (!publications.isEmpty() && publications.peekFirst()[0] == head) {
            publications.pollFirst();
        }
    }

    private void runReady() {
        if (done.isScheduled()) {
            loop.cancel(done); // its descriptor runs now instead
        }
        while (engine.ready()) {
            engine.nextLatency(jitter); // keep the jitter stream aligned with the scheduled mode
            execute();
            lastStart = loop.now();
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
            execute();
            lastStart = loop.now();
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
