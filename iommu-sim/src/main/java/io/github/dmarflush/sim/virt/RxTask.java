package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.kern.AdaptiveMutex;
import io.github.dmarflush.sim.kern.KThread;
import io.github.dmarflush.sim.kern.Kernel;
import io.github.dmarflush.sim.kern.Op;
import io.github.dmarflush.sim.kern.Program;
import io.github.dmarflush.sim.kern.WaitChannel;
import io.github.dmarflush.sim.vtime.EventLoop;

/**
 * A NIC receive queue's task in virtual time, as iflib's {@code _task_fn_rx} →
 * {@code iflib_rxeof} on its group-taskqueue thread ({@code PI_SOFT}, bound to the queue's
 * CPU): for up to {@code rx.budget} received frames, unload each buffer
 * ({@code rxd_frag_to_sd} → {@code bus_dmamap_unload} → {@code iommu_domain_unload}: the
 * invalidation queued under {@code dmarhw}); then refill the ring
 * ({@code _iflib_fl_refill} → {@code bus_dmamap_load} → {@code iommu_gas_map} under
 * {@code iodom}); then pass the frames up the stack ({@code rx.stack_ns} each); then let other
 * tasks of the same CPU run, and go round again, or sleep until the queue's interrupt.
 *
 * <p>With {@code busdmaUnderIodom} (FreeBSD before D35557, state A) the map's entry list is
 * guarded by {@code iodom}: the unload takes it before {@code iommu_domain_unload}
 * ({@code iommu_bus_dmamap_unload}) and the load after {@code iommu_gas_map} and the
 * page-table fill ({@code iommu_bus_dmamap_load_something}).
 *
 * <p>Each step's effect on the machine (the unload, the load, the payload check) is done by
 * the shared {@link io.github.dmarflush.sim.workload.RxRing} while the simulated thread holds
 * the locks that step needs, at the end of the step's time.
 */
final class RxTask implements Program {

    private enum Step {
        WAIT, RXEOF, A_UNLOAD_LOCK, A_UNLOAD_RUN, A_UNLOAD_DONE, UNLOAD_LOCK, UNLOAD_ROOM, UNLOAD_RUN, UNLOADED,
        LOAD_LOCK, LOAD_RUN, LOADED, A_LOAD_LOCK, A_LOAD_RUN, A_LOAD_DONE, REFILL, POST, STACK, DELIVERED, TEARDOWN,
        TEARDOWN_ROOM, TEARDOWN_RUN, TEARDOWN_DONE
    }

    private final RxQueue queue;
    private final DmarUnit unit;
    private final boolean busdmaUnderIodom;
    private final Kernel kernel;
    private final EventLoop loop;
    private final VirtualClock clock;
    private final int budget;
    private final long intrLatency;
    private final AdaptiveMutex dmarhw;
    private final AdaptiveMutex iodom;
    private final AdaptiveMutex.Site unloadSite;
    private final AdaptiveMutex.Site gasMapSite;
    private final AdaptiveMutex.Site aUnloadSite;
    private final AdaptiveMutex.Site aLoadSite;
    private final Op unloadRun;
    private final Op gasMapRun;
    private final Op aUnloadRun;
    private final Op aLoadRun;
    private final Op rxeofRun;
    private final Op refillRun;
    private final long stackNanos;
    private final long pollNanos;
    private final WaitChannel frames;

    private Step step = Step.WAIT;
    private final int[] batch;
    private int batchSize;
    private int i;
    private int slot;
    private boolean armed;
    private boolean wakeScheduled;
    private boolean stopping;
    private KThread thread;

    long packets;
    long bytes;
    long integrityErrors;
    Throwable failure;

    RxTask(RxQueue queue, DmarUnit unit, boolean busdmaUnderIodom, VirtualClock clock) {
        this.queue = queue;
        this.unit = unit;
        this.busdmaUnderIodom = busdmaUnderIodom;
        this.kernel = clock.kernel();
        this.loop = clock.loop();
        this.clock = clock;
        CostModel c = clock.costs();
        this.budget = (int) c.get(Cost.RX_BUDGET);
        this.intrLatency = c.get(Cost.INTR_LATENCY_NS);
        this.batch = new int[budget];
        this.dmarhw = VirtualClock.adaptive(unit.lock());
        this.iodom = VirtualClock.adaptive(queue.ring.domain().lock());
        this.unloadSite = dmarhw.site("iommu_domain_unload");
        this.gasMapSite = iodom.site("iommu_gas_map");
        this.aUnloadSite = iodom.site("iommu_bus_dmamap_unload");
        this.aLoadSite = iodom.site("iommu_bus_dmamap_load_something");
        this.unloadRun = Op.run(c.get(Cost.UNLOAD_HOLD_NS));
        this.gasMapRun = Op.run(c.get(Cost.GAS_MAP_HOLD_NS));
        this.aUnloadRun = Op.run(c.get(Cost.A_UNLOAD_HOLD_NS));
        this.aLoadRun = Op.run(c.get(Cost.A_LOAD_HOLD_NS));
        this.rxeofRun = Op.run(c.get(Cost.RX_RXEOF_NS));
        this.refillRun = Op.run(c.get(Cost.RX_REFILL_NS));
        this.stackNanos = c.get(Cost.RX_STACK_NS);
        // One dmar_qi_ensure iteration reads IQH and writes IQT: the two register accesses task.ics_ns stands for.
        this.pollNanos = Math.max(1, c.get(Cost.TASK_ICS_NS));
        this.frames = new WaitChannel("rxq" + queue.index);
    }

    void start(int cpu, int priority) {
        this.thread = kernel.spawn("rxq" + queue.index, priority, cpu, this);
    }

    /** A frame landed: if the task sleeps, the queue's interrupt wakes it after the delivery latency. */
    void frameArrived() {
        if (armed && !wakeScheduled) {
            wakeScheduled = true;
            loop.after(clock.vary(intrLatency), () -> {
                wakeScheduled = false;
                armed = false;
                kernel.wakeup(frames);
            });
        }
    }

    /** Finish the frames already received, give back every posted buffer, and exit. */
    void stop() {
        stopping = true;
        if (armed) {
            armed = false;
            kernel.wakeup(frames);
        }
    }

    KThread thread() {
        return thread;
    }

    boolean finished() {
        return thread.state() == KThread.State.DEAD;
    }

    @Override
    public Op next(KThread self) {
        try {
            return nextStep();
        } catch (RuntimeException | Error e) {
            failure = e;
            return Op.Exit.EXIT;
        }
    }

    private boolean room() {
        return unit.ring().hasRoomFor(unit.descriptorsToInvalidate(queue.ring.map(slot).entries()));
    }

    /**
     * The unload's wait for ring space, as {@code dmar_qi_ensure}'s loop but in simulated
     * time: none if there is room now; otherwise a queue-full event and a spin every
     * {@code task.ics_ns} (an IQH read and an IQT write) until there is.
     */
    private Op roomOrWait(Step then) {
        step = then;
        if (room()) {
            return Op.run(0);
        }
        unit.ring().countWait(0);
        return new Op.SpinUntil(() -> {
            if (room()) {
                return true;
            }
            unit.ring().countWait(1);
            return false;
        }, pollNanos);
    }

    private Op nextStep() {
        for (;;) {
            switch (step) {
                case WAIT -> {
                    if (queue.filled() == 0) {
                        if (stopping) {
                            step = Step.TEARDOWN;
                            continue;
                        }
                        armed = true;
                        return new Op.Sleep(frames);
                    }
                    batchSize = Math.min(budget, queue.filled());
                    for (int k = 0; k < batchSize; k++) {
                        batch[k] = queue.takeFilled();
                    }
                    i = 0;
                    step = Step.RXEOF;
                }
                // ---- iflib_rxeof: unload each received buffer ----
                case RXEOF -> {
                    slot = batch[i];
                    step = Step.A_UNLOAD_LOCK;
                    return rxeofRun;
                }
                case A_UNLOAD_LOCK -> {
                    if (!busdmaUnderIodom) {
                        step = Step.UNLOAD_LOCK;
                        continue;
                    }
                    step = Step.A_UNLOAD_RUN;
                    return aUnloadSite.acquire();
                }
                case A_UNLOAD_RUN -> {
                    step = Step.A_UNLOAD_DONE;
                    return aUnloadRun;
                }
                case A_UNLOAD_DONE -> {
                    step = Step.UNLOAD_LOCK;
                    return iodom.release();
                }
                case UNLOAD_LOCK -> {
                    step = Step.UNLOAD_ROOM;
                    return unloadSite.acquire();
                }
                case UNLOAD_ROOM -> {
                    return roomOrWait(Step.UNLOAD_RUN);
                }
                case UNLOAD_RUN -> {
                    step = Step.UNLOADED;
                    return unloadRun;
                }
                case UNLOADED -> {
                    queue.ring.unload(slot);
                    if (!queue.ring.arrived(slot)) {
                        integrityErrors++;
                    }
                    i++;
                    if (i < batchSize) {
                        step = Step.RXEOF;
                    } else {
                        i = 0;
                        step = Step.LOAD_LOCK;
                    }
                    return dmarhw.release();
                }
                // ---- iflib_fl_refill: load a buffer for each slot and post it ----
                case LOAD_LOCK -> {
                    slot = batch[i];
                    if (stopping) {
                        step = Step.STACK; // no refill after the run: the ring is torn down
                        continue;
                    }
                    step = Step.LOAD_RUN;
                    return gasMapSite.acquire();
                }
                case LOAD_RUN -> {
                    step = Step.LOADED;
                    return gasMapRun;
                }
                case LOADED -> {
                    queue.ring.load(slot);
                    step = Step.REFILL;
                    return iodom.release();
                }
                case REFILL -> {
                    // the page-table fill (domain_map_buf) and the rest of the refill, outside iodom
                    step = busdmaUnderIodom ? Step.A_LOAD_LOCK : Step.POST;
                    return refillRun;
                }
                case A_LOAD_LOCK -> {
                    step = Step.A_LOAD_RUN;
                    return aLoadSite.acquire();
                }
                case A_LOAD_RUN -> {
                    step = Step.A_LOAD_DONE;
                    return aLoadRun;
                }
                case A_LOAD_DONE -> {
                    step = Step.POST;
                    return iodom.release();
                }
                case POST -> {
                    queue.post(slot);
                    i++;
                    step = i < batchSize ? Step.LOAD_LOCK : Step.STACK;
                }
                // ---- if_input: the frames go up the stack ----
                case STACK -> {
                    step = Step.DELIVERED;
                    return Op.run(stackNanos * batchSize);
                }
                case DELIVERED -> {
                    packets += batchSize;
                    bytes += (long) batchSize * queue.ring.packetSize();
                    step = Step.WAIT;
                    return Op.Yield.YIELD; // GROUPTASK_ENQUEUE: other queues' tasks on this CPU go first
                }
                // ---- teardown: take back the buffers still posted and unload them ----
                case TEARDOWN -> {
                    slot = queue.takePosted();
                    if (slot < 0) {
                        return Op.Exit.EXIT;
                    }
                    step = Step.TEARDOWN_ROOM;
                    return unloadSite.acquire();
                }
                case TEARDOWN_ROOM -> {
                    return roomOrWait(Step.TEARDOWN_RUN);
                }
                case TEARDOWN_RUN -> {
                    step = Step.TEARDOWN_DONE;
                    return unloadRun;
                }
                case TEARDOWN_DONE -> {
                    queue.ring.unload(slot);
                    step = Step.TEARDOWN;
                    return dmarhw.release();
                }
                default -> throw new AssertionError(step);
            }
        }
    }
}
