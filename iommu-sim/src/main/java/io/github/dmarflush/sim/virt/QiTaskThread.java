package io.github.dmarflush.sim.virt;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import io.github.dmarflush.sim.driver.QiTaskRunner;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.kern.AdaptiveMutex;
import io.github.dmarflush.sim.kern.KThread;
import io.github.dmarflush.sim.kern.Kernel;
import io.github.dmarflush.sim.kern.Op;
import io.github.dmarflush.sim.kern.Program;
import io.github.dmarflush.sim.kern.WaitChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * A unit's QI task in virtual time: the taskqueue thread {@code "dmar%d qi taskq"} at
 * {@code PI_AV}, woken by the completion interrupt ({@code intr.latency_ns} after the status
 * write), running {@code dmar_qi_task} as a simulated thread.
 *
 * <p>The flush list, its drain and the processed test are the library's; what the library
 * would do while blocked on a lock is done here as the thread's own steps. The drain is called
 * with a stop condition that lets it release one entry per call, the entry's reclamation is
 * recorded ({@link DeferredReclaimer}), and the thread then takes the locks the freeing needs
 * in simulated time. The steps follow FreeBSD:
 *
 * <ul>
 *   <li>{@code locked} (the pre-2022 {@code dmar_qi_task}, FreeBSD 13): take {@code dmarhw}
 *       (site {@code dmar_qi_task (entry)}); per processed entry: test and dequeue it
 *       ({@code task.entry_ns}), drop {@code dmarhw}, free its space under {@code iodom}
 *       ({@code dmar_domain_free_entry}, {@code gas_free.hold_ns}), free the entry, take
 *       {@code dmarhw} again (site {@code dmar_qi_task (loop)}); then read and clear ICS
 *       ({@code task.ics_ns}) and drop {@code dmarhw}. No second drain: that came with the
 *       2022 change.</li>
 *   <li>{@code flushlist} (the library's {@code QiTask}, FreeBSD after 2022): drain without
 *       {@code dmarhw}, each entry's space freed under {@code iodom}
 *       ({@code dmar_domain_free_entry}); read ICS and, if IWC is set, clear it and drain
 *       again.</li>
 * </ul>
 *
 * <p>Synchronous waiters are not modelled in virtual time (strict mode is refused), so the
 * wakeup step never runs.
 */
public final class QiTaskThread implements QiTaskRunner, Program {

    /** The first lock of a locked pass: FreeBSD 13's {@code dmar_qi_task+0x193} in state B (inferred). */
    public static final String SITE_ENTRY = "dmar_qi_task (entry)";
    /** The per-entry re-lock of a locked pass: FreeBSD 13's {@code dmar_qi_task+0x148} in state B (inferred). */
    public static final String SITE_LOOP = "dmar_qi_task (loop)";
    /** The domain lock taken to free an entry's space. */
    public static final String SITE_FREE = "dmar_domain_free_entry";

    private enum Step {
        IDLE, TEST, DRAINED, FREE_LOCK, FREE_RUN, FREE_DONE, LOOP_LOCK, ICS_READ, ICS_DONE, PASS_DONE
    }

    private final DmarUnit unit;
    private final Kernel kernel;
    private final DeferredReclaimer reclaims;
    private final boolean locked;
    private final TlbFlushList<IommuMapEntry> list;
    private final AdaptiveMutex dmarhw;
    private final AdaptiveMutex.Site entrySite;
    private final AdaptiveMutex.Site loopSite;
    private final Map<AdaptiveMutex, AdaptiveMutex.Site> freeSites = new HashMap<>();
    private final Op entryRun;
    private final Op freeRun;
    private final Op icsRun;
    private final WaitChannel wakeup;
    private final KThread thread;
    private final OneEntry oneEntry;

    private Step step = Step.IDLE;
    private boolean pending;
    private boolean secondDrain;
    private IommuMapEntry freeing;
    private AdaptiveMutex freeingLock;

    private long runs;
    private long enqueues;
    private long releasedFirst;
    private long releasedSecond;
    private long iwcClears;
    private Throwable failure;

    /** The drain's stop condition for one call: the sequencer's answer for the first entry, then "not processed". */
    private static final class OneEntry implements SeqProcessed {
        private final SeqProcessed inner;
        private boolean asked;

        OneEntry(SeqProcessed inner) {
            this.inner = inner;
        }

        @Override
        public boolean processed(long gseq) {
            if (asked) {
                return false;
            }
            asked = true;
            return inner.processed(gseq);
        }
    }

    QiTaskThread(DmarUnit unit, VirtualClock clock, DeferredReclaimer reclaims) {
        if (unit.options().hooks().task() != UnitHooks.LIBRARY.task()) {
            throw new IllegalArgumentException("a QI task other than the library's cannot run in virtual time: its"
                    + " steps are modelled here");
        }
        this.unit = unit;
        this.kernel = clock.kernel();
        this.reclaims = reclaims;
        this.locked = unit.strategy() == FlushStrategy.LOCKED;
        this.list = unit.flushList();
        this.dmarhw = VirtualClock.adaptive(unit.lock());
        this.entrySite = dmarhw.site(SITE_ENTRY);
        this.loopSite = dmarhw.site(SITE_LOOP);
        CostModel c = clock.costs();
        this.entryRun = Op.run(c.get(Cost.TASK_ENTRY_NS));
        this.freeRun = Op.run(c.get(Cost.GAS_FREE_HOLD_NS));
        this.icsRun = Op.run(c.get(Cost.TASK_ICS_NS));
        this.oneEntry = new OneEntry(unit.sequencer());
        String name = unit.hardware().name() + " qi taskq";
        this.wakeup = new WaitChannel(name);
        long latency = c.get(Cost.INTR_LATENCY_NS);
        // dmar_qi_intr: a filter that only enqueues the task, intr.latency_ns after the status write.
        unit.hardware().setInterruptHandler(() -> clock.loop().after(clock.vary(latency), this::enqueue));
        this.thread = kernel.spawn(name, (int) c.get(Cost.PRIO_QI_TASK), -1, this);
    }

    @Override
    public void enqueue() {
        enqueues++;
        pending = true;
        kernel.wakeup(wakeup);
    }

    @Override
    public Op next(KThread self) {
        try {
            return nextStep();
        } catch (RuntimeException | Error e) {
            failure = e;
            step = Step.IDLE;
            pending = false;
            return Op.Exit.EXIT;
        }
    }

    private Op nextStep() {
        for (;;) {
            switch (step) {
                case IDLE -> {
                    if (!pending) {
                        return new Op.Sleep(wakeup);
                    }
                    pending = false;
                    secondDrain = false;
                    if (locked) {
                        step = Step.TEST;
                        return entrySite.acquire();
                    }
                    step = Step.TEST;
                }
                case TEST -> {
                    step = Step.DRAINED;
                    return entryRun; // test the first entry and dequeue it
                }
                case DRAINED -> {
                    oneEntry.asked = false;
                    int n = list.drain(oneEntry);
                    if (n == 0) {
                        step = Step.ICS_READ;
                        continue;
                    }
                    if (secondDrain) {
                        releasedSecond += n;
                    } else {
                        releasedFirst += n;
                    }
                    freeing = reclaims.retireUpToNextRelease();
                    freeingLock = VirtualClock.adaptive(freeing.domain().lock());
                    step = Step.FREE_LOCK;
                    if (locked) {
                        return dmarhw.release();
                    }
                }
                case FREE_LOCK -> {
                    step = Step.FREE_RUN;
                    return freeSites.computeIfAbsent(freeingLock, m -> m.site(SITE_FREE)).acquire();
                }
                case FREE_RUN -> {
                    step = Step.FREE_DONE;
                    return freeRun;
                }
                case FREE_DONE -> {
                    reclaims.release(freeing);
                    IommuMapEntry done = reclaims.retireUpToNextRelease();
                    if (done != null) {
                        throw new IllegalStateException("the drain released two entries in one step");
                    }
                    AdaptiveMutex l = freeingLock;
                    freeing = null;
                    freeingLock = null;
                    step = locked ? Step.LOOP_LOCK : Step.TEST;
                    return l.release();
                }
                case LOOP_LOCK -> {
                    step = Step.TEST;
                    return loopSite.acquire();
                }
                case ICS_READ -> {
                    step = Step.ICS_DONE;
                    return icsRun;
                }
                case ICS_DONE -> {
                    boolean again = false;
                    if (unit.iwc()) {
                        unit.clearIwc();
                        iwcClears++;
                        // Drain a second time: an entry completed between the first drain and
                        // the clear raised no interrupt. The locked design (FreeBSD 13) did not.
                        again = !locked && !secondDrain;
                    }
                    if (again) {
                        secondDrain = true;
                        step = Step.TEST;
                        continue;
                    }
                    if (unit.sequencer().waiters() > 0) {
                        throw new IllegalStateException("synchronous waiters are not modelled in virtual time");
                    }
                    step = Step.PASS_DONE;
                    if (locked) {
                        return dmarhw.release();
                    }
                }
                case PASS_DONE -> {
                    runs++;
                    step = Step.IDLE;
                }
                default -> throw new AssertionError(step);
            }
        }
    }

    /** @return whether the task is asleep with nothing pending */
    public boolean idle() {
        return step == Step.IDLE && !pending && thread.state() == KThread.State.SLEEPING;
    }

    /** @return the simulated thread */
    public KThread thread() {
        return thread;
    }

    @Override
    public long runs() {
        return runs;
    }

    @Override
    public long enqueues() {
        return enqueues;
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public TaskCounters counters() {
        return new TaskCounters(releasedFirst, releasedSecond, iwcClears);
    }

    @Override
    public void close() {
        // nothing to stop: the thread lives in the simulation
    }
}
