package io.github.dmarflush.sim.kern;

import io.github.dmarflush.sim.vtime.Event;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongUnaryOperator;

/**
 * A multiprocessor kernel in simulated time: CPUs, threads running {@link Program}s, a
 * priority scheduler with preemption, FreeBSD adaptive mutexes with turnstiles and priority
 * propagation, and sleep/wakeup.
 *
 * <h2>Scheduling</h2>
 * <ul>
 *   <li>A runnable thread goes to an idle CPU it may run on (the one it last ran on if that
 *       is idle, else the lowest-numbered). With none idle, it preempts the running thread of
 *       the worst priority if that is worse than its own (FreeBSD's kernel preemption); the
 *       preempted thread goes to the front of the run queue at its priority.</li>
 *   <li>A CPU that starts running a thread pays {@code switchNanos} before the thread
 *       continues: a switch from another thread, or from the idle thread.</li>
 *   <li>Scheduling decisions are taken in an event at the current instant, after the event
 *       that caused them, so a program never sees itself preempted in the middle of its own
 *       step.</li>
 * </ul>
 *
 * <p>Not thread-safe: one host thread runs the {@link EventLoop} and everything in it.
 */
public final class Kernel {

    private final EventLoop loop;
    private final Cpu[] cpus;
    private final long switchNanos;
    private final SpinPolicy spin;
    private final LongUnaryOperator runTime;
    private final List<KThread> threads = new ArrayList<>();
    private final List<KThread> runq = new ArrayList<>();
    private final List<AdaptiveMutex> mutexes = new ArrayList<>();
    private long nextRunqOrder;
    private long nextFrontOrder = -1;
    private KThread current;
    private boolean inLoop;
    private long contextSwitches;
    private long preemptions;
    /** Best effective priority first, then FIFO (preempted threads at the front of their priority). */
    private static final java.util.Comparator<KThread> RUNQ_ORDER = (a, b) -> {
        int c = Integer.compare(a.effectivePriority(), b.effectivePriority());
        return c != 0 ? c : Long.compare(a.runqOrder, b.runqOrder);
    };
    private final Event balance = new Event() {
        @Override
        protected void fire() {
            balance();
        }
    };

    /**
     * A kernel whose runs take exactly the time their op gives.
     *
     * @param loop the event loop
     * @param ncpu CPUs, 1..1024
     * @param switchNanos ns a CPU spends switching to another thread, 0 or more
     * @param spin how contended mutexes spin
     * @throws IllegalArgumentException if a value is out of range
     */
    public Kernel(EventLoop loop, int ncpu, long switchNanos, SpinPolicy spin) {
        this(loop, ncpu, switchNanos, spin, LongUnaryOperator.identity());
    }

    /**
     * @param loop the event loop
     * @param ncpu CPUs, 1..1024
     * @param switchNanos ns a CPU spends switching to another thread, 0 or more
     * @param spin how contended mutexes spin
     * @param runTime the time an {@link Op.Run} of a given length really takes (the model's
     *     variation of CPU work), applied once when the run starts
     * @throws IllegalArgumentException if a value is out of range
     */
    public Kernel(EventLoop loop, int ncpu, long switchNanos, SpinPolicy spin, LongUnaryOperator runTime) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.spin = Objects.requireNonNull(spin, "spin");
        this.runTime = Objects.requireNonNull(runTime, "runTime");
        if (ncpu < 1 || ncpu > 1024) {
            throw new IllegalArgumentException("CPUs must be 1..1024, got " + ncpu);
        }
        if (switchNanos < 0) {
            throw new IllegalArgumentException("context switch time must be >= 0 ns, got " + switchNanos);
        }
        this.switchNanos = switchNanos;
        this.cpus = new Cpu[ncpu];
        for (int i = 0; i < ncpu; i++) {
            cpus[i] = new Cpu(i);
        }
    }

    /** @return the event loop */
    public EventLoop loop() {
        return loop;
    }

    /** @return the current simulated time, ns */
    public long now() {
        return loop.now();
    }

    /** @return the number of CPUs */
    public int cpus() {
        return cpus.length;
    }

    /** @return the thread whose program step is running, or null */
    public KThread current() {
        return current;
    }

    /** @return context switches so far */
    public long contextSwitches() {
        return contextSwitches;
    }

    /** @return preemptions so far */
    public long preemptions() {
        return preemptions;
    }

    /** @return every thread spawned */
    public List<KThread> threads() {
        return List.copyOf(threads);
    }

    /**
     * @param name the mutex's name, e.g. {@code dmarhw}
     * @return a new adaptive mutex
     */
    public AdaptiveMutex newMutex(String name) {
        AdaptiveMutex m = new AdaptiveMutex(this, name);
        mutexes.add(m);
        return m;
    }

    /**
     * Creates a thread and makes it runnable; it starts at its program's first op.
     *
     * @param name its name
     * @param priority FreeBSD priority, lower is more urgent
     * @param boundCpu the CPU it must run on, or -1 for any
     * @param program what it does
     * @return the thread
     * @throws IllegalArgumentException if {@code boundCpu} is not a CPU of this kernel
     */
    public KThread spawn(String name, int priority, int boundCpu, Program program) {
        if (boundCpu < -1 || boundCpu >= cpus.length) {
            throw new IllegalArgumentException("thread " + name + " bound to CPU " + boundCpu + " of " + cpus.length);
        }
        KThread t = new KThread(this, name, priority, boundCpu, program);
        threads.add(t);
        makeRunnable(t);
        return t;
    }

    /**
     * Makes every thread asleep on {@code ch} runnable ({@code wakeup}).
     *
     * @param ch the channel
     */
    public void wakeup(WaitChannel ch) {
        if (ch.sleepers.isEmpty()) {
            return;
        }
        List<KThread> woken = new ArrayList<>(ch.sleepers);
        ch.sleepers.clear();
        for (KThread t : woken) {
            t.resume = KThread.Resume.NEXT;
            makeRunnable(t);
        }
    }

    /**
     * Runs the simulation until {@code time} ({@link EventLoop#runUntil}).
     *
     * @param time the end, ns
     */
    public void runUntil(long time) {
        inLoop = true;
        try {
            loop.runUntil(time);
        } finally {
            inLoop = false;
        }
    }

    /**
     * Runs the simulation until no event is left or the next is after {@code limit}.
     *
     * @param limit the latest time to fire an event at, ns
     * @return true if no event is left
     */
    public boolean runUntilIdle(long limit) {
        inLoop = true;
        try {
            return loop.runUntilIdle(limit);
        } finally {
            inLoop = false;
        }
    }

    /**
     * Whether the running simulated thread holds {@code m}, or the simulation is not running
     * (set-up and end-of-run checks, between {@link #runUntil} calls).
     */
    boolean holdsOrOutside(AdaptiveMutex m) {
        return !inLoop || (current != null && m.owner == current);
    }

    // ---- thread steps ----

    void onStep(KThread t) {
        switch (t.stepKind) {
            case SWITCH_IN -> resume(t);
            case RUN_END -> advance(t);
            case SPIN_CHECK -> spinLook(t);
            case POLL -> poll(t);
        }
    }

    private void resume(KThread t) {
        switch (t.resume) {
            case NEXT -> advance(t);
            case RUN -> startRun(t, t.remaining);
            case CONTEND -> {
                if (contend(t)) {
                    advance(t);
                }
            }
            case POLL -> poll(t);
        }
    }

    private void startRun(KThread t, long nanos) {
        t.resume = KThread.Resume.RUN;
        t.stepKind = KThread.StepKind.RUN_END;
        loop.schedule(t.step, now() + nanos);
    }

    /** Runs the program from its next op until it waits for time, a lock, or an event. */
    private void advance(KThread t) {
        current = t;
        try {
            for (;;) {
                t.resume = KThread.Resume.NEXT;
                Op op = t.program.next(t);
                t.op = op;
                if (op instanceof Op.Run r) {
                    long nanos = r.nanos() > 0 ? runTime.applyAsLong(r.nanos()) : 0;
                    if (nanos > 0) {
                        startRun(t, nanos);
                        return;
                    }
                } else if (op instanceof Op.Acquire a) {
                    if (!acquire(t, a.site())) {
                        return;
                    }
                } else if (op instanceof Op.Release r) {
                    release(t, r.mutex());
                } else if (op instanceof Op.SpinUntil s) {
                    if (!s.done().getAsBoolean()) {
                        t.resume = KThread.Resume.POLL;
                        t.stepKind = KThread.StepKind.POLL;
                        loop.schedule(t.step, now() + s.pollNanos());
                        return;
                    }
                } else if (op instanceof Op.Sleep s) {
                    sleep(t, s.channel());
                    return;
                } else if (op == Op.Yield.YIELD) {
                    if (relinquish(t)) {
                        return;
                    }
                } else if (op == Op.Exit.EXIT) {
                    exit(t);
                    return;
                } else {
                    throw new IllegalStateException(t.name() + ": program returned " + op);
                }
            }
        } finally {
            current = null;
        }
    }

    private void poll(KThread t) {
        Op.SpinUntil s = (Op.SpinUntil) t.op;
        current = t;
        boolean done;
        try {
            done = s.done().getAsBoolean();
        } finally {
            current = null;
        }
        if (done) {
            advance(t);
        } else {
            t.resume = KThread.Resume.POLL;
            t.stepKind = KThread.StepKind.POLL;
            loop.schedule(t.step, now() + s.pollNanos());
        }
    }

    // ---- adaptive mutexes ----

    /** The first attempt of {@code mtx_lock}. @return whether it was taken at once */
    private boolean acquire(KThread t, AdaptiveMutex.Site site) {
        AdaptiveMutex m = site.mutex();
        if (m.owner == t) {
            throw new IllegalStateException(t.name() + " locks " + m.name() + " at " + site.stats().caller()
                    + " while holding it (mutexes are not recursive)");
        }
        if (m.owner == null) {
            m.owner = t;
            t.held.add(m);
            site.stats().acquired();
            return true;
        }
        t.wanted = site;
        t.contendedAt = now();
        t.spun = false;
        t.blockedNanos = 0;
        return contend(t);
    }

    /** One pass of {@code __mtx_lock_sleep}'s loop, on CPU. @return whether it took the lock */
    private boolean contend(KThread t) {
        AdaptiveMutex m = t.wanted.mutex();
        if (m.owner == null) {
            take(t);
            return true;
        }
        if (m.owner.isRunning()) {
            t.spun = true;
            t.spinningOn = m;
            t.spinPhaseStart = now();
            t.resume = KThread.Resume.CONTEND;
            m.spinners.add(t);
            return false;
        }
        block(t, m);
        return false;
    }

    private void take(KThread t) {
        AdaptiveMutex.Site site = t.wanted;
        AdaptiveMutex m = site.mutex();
        m.owner = t;
        t.held.add(m);
        site.stats().acquired();
        long total = now() - t.contendedAt;
        if (t.blockedNanos > 0) {
            site.stats().blocked(t.blockedNanos);
        }
        if (t.spun) {
            long s = total - t.blockedNanos;
            site.stats().spun(s);
            t.spinNanos += s;
        }
        t.wanted = null;
    }

    /** A spinner's look at the lock word after a {@code lock_delay()} round. */
    private void spinLook(KThread t) {
        AdaptiveMutex m = t.spinningOn;
        if (m.owner == null) {
            m.spinners.remove(t);
            t.spinningOn = null;
            take(t);
            advance(t);
        } else if (!m.owner.isRunning()) {
            m.spinners.remove(t);
            t.spinningOn = null;
            block(t, m);
        }
        // else: the lock changed hands and the new owner runs; keep spinning until it changes again
    }

    /** Schedules the look at which each spinner of {@code m} will notice a change of its state. */
    private void lookSoon(AdaptiveMutex m) {
        for (KThread s : m.spinners) {
            long at = spin.nextLook(s.spinPhaseStart, now());
            if (!(s.step.isScheduled() && s.stepKind == KThread.StepKind.SPIN_CHECK && s.step.time() <= at)) {
                s.stepKind = KThread.StepKind.SPIN_CHECK;
                loop.schedule(s.step, at);
            }
        }
    }

    private void release(KThread t, AdaptiveMutex m) {
        if (m.owner != t) {
            throw new IllegalStateException(t.name() + " unlocks " + m.name() + ", which "
                    + (m.owner == null ? "is not locked" : m.owner.name() + " holds"));
        }
        m.owner = null;
        t.held.remove(m);
        if (!m.blocked.isEmpty()) {
            List<KThread> woken = new ArrayList<>(m.blocked);
            m.blocked.clear();
            for (KThread b : woken) {
                b.blockedNanos += now() - b.blockedAt;
                b.resume = KThread.Resume.CONTEND;
                makeRunnable(b);
            }
            requestBalance(); // t may have lost a lent priority
        }
        lookSoon(m);
    }

    private void block(KThread t, AdaptiveMutex m) {
        t.blockedAt = now();
        t.resume = KThread.Resume.CONTEND;
        m.blocked.add(t);
        offCpu(t, KThread.State.BLOCKED);
        requestBalance(); // the owner may now run at t's priority
    }

    // ---- sleep, exit, run queue, CPUs ----

    private void sleep(KThread t, WaitChannel ch) {
        if (!t.held.isEmpty()) {
            throw new IllegalStateException(t.name() + " sleeps on " + ch + " holding " + t.held
                    + " (an adaptive mutex may not be held across a sleep)");
        }
        t.resume = KThread.Resume.NEXT;
        ch.sleepers.add(t);
        offCpu(t, KThread.State.SLEEPING);
    }

    /** @return whether the thread left its CPU (someone of its priority or better was waiting) */
    private boolean relinquish(KThread t) {
        int p = t.effectivePriority();
        boolean waiting = false;
        for (KThread r : runq) {
            if (r.effectivePriority() <= p && r.mayRunOn(t.cpu)) {
                waiting = true;
                break;
            }
        }
        if (!waiting) {
            return false;
        }
        if (!t.held.isEmpty()) {
            throw new IllegalStateException(t.name() + " yields holding " + t.held);
        }
        t.resume = KThread.Resume.NEXT;
        Cpu c = t.cpu;
        t.cpuNanos += now() - t.onCpuSince;
        t.cpu = null;
        c.thread = null;
        makeRunnable(t);
        return true;
    }

    private void exit(KThread t) {
        if (!t.held.isEmpty()) {
            throw new IllegalStateException(t.name() + " exits holding " + t.held);
        }
        offCpu(t, KThread.State.DEAD);
    }

    private void offCpu(KThread t, KThread.State state) {
        Cpu c = t.cpu;
        if (t.step.isScheduled()) {
            loop.cancel(t.step);
        }
        t.cpuNanos += now() - t.onCpuSince;
        t.state = state;
        t.cpu = null;
        c.thread = null;
        for (AdaptiveMutex m : t.held) {
            lookSoon(m); // its spinners will see the owner off CPU and block
        }
        requestBalance();
    }

    private void makeRunnable(KThread t) {
        t.state = KThread.State.RUNNABLE;
        t.runqOrder = nextRunqOrder++;
        runq.add(t);
        requestBalance();
    }

    private void requestBalance() {
        if (!balance.isScheduled()) {
            loop.scheduleIn(balance, 0);
        }
    }

    /** Places runnable threads on idle CPUs, preempting worse-priority threads where it must. */
    private void balance() {
        boolean placed = true;
        while (placed && !runq.isEmpty()) {
            placed = false;
            if (runq.size() > 1) {
                runq.sort(RUNQ_ORDER);
            }
            for (int i = 0; i < runq.size(); i++) {
                KThread t = runq.get(i);
                Cpu c = idleCpuFor(t);
                if (c == null) {
                    c = victimCpuFor(t);
                    if (c == null) {
                        continue;
                    }
                    preempt(c.thread);
                }
                dispatch(c, t);
                placed = true;
                break;
            }
        }
    }

    private Cpu idleCpuFor(KThread t) {
        if (t.lastCpu != null && t.lastCpu.thread == null && t.mayRunOn(t.lastCpu)) {
            return t.lastCpu;
        }
        for (Cpu c : cpus) {
            if (c.thread == null && t.mayRunOn(c)) {
                return c;
            }
        }
        return null;
    }

    private Cpu victimCpuFor(KThread t) {
        int p = t.effectivePriority();
        Cpu worst = null;
        int worstPriority = p;
        for (Cpu c : cpus) {
            if (c.thread != null && t.mayRunOn(c)) {
                int q = c.thread.effectivePriority();
                if (q > worstPriority) {
                    worst = c;
                    worstPriority = q;
                }
            }
        }
        return worst;
    }

    private void preempt(KThread v) {
        preemptions++;
        if (v.step.isScheduled()) {
            if (v.stepKind == KThread.StepKind.RUN_END) {
                v.remaining = v.step.time() - now();
            }
            loop.cancel(v.step);
        }
        if (v.spinningOn != null) {
            v.spinningOn.spinners.remove(v);
            v.spinningOn = null;
            v.resume = KThread.Resume.CONTEND;
        }
        Cpu c = v.cpu;
        v.cpuNanos += now() - v.onCpuSince;
        v.state = KThread.State.RUNNABLE;
        v.cpu = null;
        c.thread = null;
        v.runqOrder = nextFrontOrder--;
        runq.add(v);
        for (AdaptiveMutex m : v.held) {
            lookSoon(m);
        }
    }

    private void dispatch(Cpu c, KThread t) {
        runq.remove(t);
        c.thread = t;
        t.cpu = c;
        t.lastCpu = c;
        t.state = KThread.State.ON_CPU;
        t.onCpuSince = now();
        // A switch from another thread or from the idle thread (cpu_idle's exit): FreeBSD's
        // idle loop is a thread too, so waking a sleeping thread on an idle CPU is a switch.
        contextSwitches++;
        t.stepKind = KThread.StepKind.SWITCH_IN;
        loop.schedule(t.step, now() + switchNanos);
    }
}
