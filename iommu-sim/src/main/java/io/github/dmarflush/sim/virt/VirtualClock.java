package io.github.dmarflush.sim.virt;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimClock;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.driver.QiTaskRunner;
import io.github.dmarflush.sim.driver.TaskScheduling;
import io.github.dmarflush.sim.hw.EngineDriver;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.EventEngine;
import io.github.dmarflush.sim.hw.RegisterTiming;
import io.github.dmarflush.sim.kern.AdaptiveMutex;
import io.github.dmarflush.sim.kern.Kernel;
import io.github.dmarflush.sim.kern.SpinPolicy;
import io.github.dmarflush.sim.lock.MutexFactory;
import io.github.dmarflush.sim.lock.SimMutex;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The virtual-time clock: one {@link EventLoop} and one {@link Kernel} of {@code ncpu}
 * simulated CPUs, on which the machine's mutexes are FreeBSD adaptive mutexes, each unit's
 * engine completes descriptors after their latencies ({@link EventEngine}), and each unit's QI
 * task is a simulated thread ({@link QiTaskThread}). Every time the model uses comes from its
 * {@link CostModel}. Register accesses cost no host time here: their cost is part of the
 * critical sections' times in the cost model.
 *
 * <p>A clock serves one machine. Not thread-safe: one host thread runs everything.
 */
public final class VirtualClock implements SimClock {

    /** FreeBSD's {@code lock_delay_default_init} caps the maximum delay at this many pauses. */
    static final int LOCK_DELAY_CAP = 32678;

    private final CostModel costs;
    private final EventLoop loop = new EventLoop();
    private final SplittableRandom random;
    private final double variation;
    private final Kernel kernel;
    private final List<EventEngine> engines = new ArrayList<>();
    private final List<QiTaskThread> tasks = new ArrayList<>();
    private DeferredReclaimer nextReclaimer;

    /**
     * @param costs the cost model
     * @param ncpu simulated CPUs, 1..1024
     * @param seed seeds the variation of times ({@code model.variation_pct})
     * @throws IllegalArgumentException if the variation is 100% or more
     */
    public VirtualClock(CostModel costs, int ncpu, long seed) {
        this.costs = Objects.requireNonNull(costs, "costs");
        long pct = costs.get(Cost.VARIATION_PCT);
        if (pct >= 100) {
            throw new IllegalArgumentException(Cost.VARIATION_PCT.key() + " must be below 100, got " + pct);
        }
        this.variation = pct / 100.0;
        this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        SpinPolicy spin = new SpinPolicy(costs.get(Cost.LOCK_PAUSE_NS), (int) costs.get(Cost.LOCK_DELAY_BASE),
                lockDelayMax(ncpu));
        this.kernel = new Kernel(loop, ncpu, costs.get(Cost.SCHED_SWITCH_NS), spin, this::vary);
    }

    /**
     * The time a step of nominal length {@code nanos} takes this time: uniform within
     * {@code model.variation_pct} of it, drawn from the clock's seeded stream.
     *
     * @param nanos the nominal time, ns
     * @return the time, ns, at least 1 if {@code nanos} is
     */
    public long vary(long nanos) {
        if (variation == 0 || nanos == 0) {
            return nanos;
        }
        double f = 1 + variation * (2 * random.nextDouble() - 1);
        return Math.max(1, Math.round(nanos * f));
    }

    /**
     * FreeBSD's {@code lock_delay_default_init}: {@code lock_roundup_2(mp_ncpus) * 256},
     * at most {@value #LOCK_DELAY_CAP}, where {@code lock_roundup_2} is the smallest power of
     * two above its argument.
     *
     * @param ncpu CPUs
     * @return the maximum number of pauses in one {@code lock_delay()} round
     */
    static int lockDelayMax(int ncpu) {
        // lock_roundup_2: for (res = 1; res <= val; res <<= 1); the smallest power of two
        // strictly above val, so 8 CPUs give 16.
        long res = 1;
        while (res <= ncpu) {
            res <<= 1;
        }
        return (int) Math.min(res * 256, LOCK_DELAY_CAP);
    }

    /** @return the event loop */
    public EventLoop loop() {
        return loop;
    }

    /** @return the kernel */
    public Kernel kernel() {
        return kernel;
    }

    /** @return the cost model */
    public CostModel costs() {
        return costs;
    }

    /** @return the QI task threads, one per unit */
    public List<QiTaskThread> taskThreads() {
        return List.copyOf(tasks);
    }

    /** @return descriptors the engines executed at once because a library call spun on them */
    public long engineFastForwards() {
        return engines.stream().mapToLong(EventEngine::fastForwards).sum();
    }

    /**
     * @param m a mutex of a machine on this clock
     * @return it as the adaptive mutex it is
     * @throws IllegalArgumentException if the machine is not on a virtual clock
     */
    public static AdaptiveMutex adaptive(SimMutex m) {
        if (m instanceof AdaptiveMutex a) {
            return a;
        }
        throw new IllegalArgumentException(m.name() + " is not a virtual-time mutex (machine on another clock)");
    }

    @Override
    public MutexFactory mutexes(MachineConfig config) {
        if (config.mode() != InvalidationMode.DEFERRED) {
            throw new IllegalArgumentException("strict (synchronous) invalidation is not modelled in virtual time");
        }
        return kernel::newMutex;
    }

    @Override
    public EngineDriver.Factory engines() {
        EngineDriver.Factory f = EventEngine.on(loop, this::vary, costs.get(Cost.QI_OCCUPANCY_NS));
        return (engine, name) -> {
            EventEngine e = (EventEngine) f.create(engine, name);
            engines.add(e);
            return e;
        };
    }

    @Override
    public TaskScheduling tasks() {
        return new TaskScheduling() {
            @Override
            public Reclaimer<IommuMapEntry> reclaimer(Reclaimer<IommuMapEntry> direct) {
                nextReclaimer = new DeferredReclaimer(direct);
                return nextReclaimer;
            }

            @Override
            public QiTaskRunner start(DmarUnit unit) {
                DeferredReclaimer r = nextReclaimer;
                nextReclaimer = null;
                QiTaskThread t = new QiTaskThread(unit, VirtualClock.this, r);
                tasks.add(t);
                return t;
            }
        };
    }

    @Override
    public RegisterTiming registers(MachineConfig config) {
        return RegisterTiming.NONE;
    }

    /** The engine's times from the cost model: IOTLB and wait descriptors; the set-up's context and IEC invalidations take none. */
    @Override
    public EngineTiming timing(MachineConfig config) {
        return new EngineTiming(costs.get(Cost.QI_IOTLB_NS), 0, 0, costs.get(Cost.QI_WAIT_NS), 0, 0);
    }

    /** The machine is set up: from now on the engines complete descriptors in simulated time. */
    @Override
    public void machineBuilt(SimMachine machine) {
        for (EventEngine e : engines) {
            e.setImmediate(false);
        }
    }
}
