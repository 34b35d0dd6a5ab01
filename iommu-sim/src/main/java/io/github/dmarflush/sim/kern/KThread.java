package io.github.dmarflush.sim.kern;

import io.github.dmarflush.sim.vtime.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A simulated kernel thread: a {@link Program}, a priority in FreeBSD's numbering (lower is
 * more urgent: the DMAR QI taskqueue runs at {@code PI_AV}, a NIC's receive task at
 * {@code PI_NET}), and optionally the one CPU it is bound to. Its state changes only through
 * the {@link Kernel}.
 *
 * <p>Not thread-safe: it lives on the simulation's one host thread.
 */
public final class KThread {

    /** Where a thread is. */
    public enum State {
        /** Waiting in the run queue for a CPU. */
        RUNNABLE,
        /** On a CPU: running, spinning on a mutex, or switching in. */
        ON_CPU,
        /** On a mutex's turnstile: off CPU until the owner releases. */
        BLOCKED,
        /** Asleep on a {@link WaitChannel}. */
        SLEEPING,
        /** Finished. */
        DEAD
    }

    /** What the thread does when it next gets its CPU back. */
    enum Resume { NEXT, RUN, CONTEND, POLL }

    /** What the thread's pending {@link #step} event means. */
    enum StepKind { SWITCH_IN, RUN_END, SPIN_CHECK, POLL }

    private final String name;
    private final int priority;
    private final int boundCpu;
    final Program program;

    State state = State.RUNNABLE;
    Cpu cpu;
    Cpu lastCpu;
    Resume resume = Resume.NEXT;
    StepKind stepKind;
    /** ns of the current {@link Op.Run} still to do, while off CPU. */
    long remaining;
    /** The op in progress. */
    Op op;
    long runqOrder;

    /** The site being acquired while contended, else null. */
    AdaptiveMutex.Site wanted;
    /** When the current contended acquisition started. */
    long contendedAt;
    /** Whether the current contended acquisition has spun at all. */
    boolean spun;
    /** ns blocked on the turnstile during the current contended acquisition. */
    long blockedNanos;
    /** When the thread last went to the turnstile. */
    long blockedAt;
    /** The mutex it spins on now (on CPU), else null. */
    AdaptiveMutex spinningOn;
    /** Start of the current spin phase: the backoff schedule counts from here. */
    long spinPhaseStart;
    final List<AdaptiveMutex> held = new ArrayList<>(2);

    long onCpuSince;
    long cpuNanos;
    long spinNanos;

    final Event step;

    KThread(Kernel kernel, String name, int priority, int boundCpu, Program program) {
        this.name = Objects.requireNonNull(name, "name");
        this.priority = priority;
        this.boundCpu = boundCpu;
        this.program = Objects.requireNonNull(program, "program");
        this.step = new Event() {
            @Override
            protected void fire() {
                kernel.onStep(KThread.this);
            }
        };
    }

    /** @return the thread's name */
    public String name() {
        return name;
    }

    /** @return its base priority (lower is more urgent) */
    public int priority() {
        return priority;
    }

    /** @return the CPU it is bound to, or -1 if it may run on any */
    public int boundCpu() {
        return boundCpu;
    }

    /** @return where it is */
    public State state() {
        return state;
    }

    /** @return the CPU it is on, or -1 */
    public int cpuIndex() {
        return cpu == null ? -1 : cpu.index;
    }

    /** @return whether it is on a CPU ({@code TD_IS_RUNNING}) */
    public boolean isRunning() {
        return state == State.ON_CPU;
    }

    /**
     * @param now the current simulated time, ns
     * @return ns it has spent on a CPU (running, switching in or spinning) up to {@code now}
     */
    public long cpuNanos(long now) {
        return cpuNanos + (state == State.ON_CPU ? now - onCpuSince : 0);
    }

    /**
     * @return ns it has spent spinning on mutexes, counted at each acquisition that ended a
     *     spin (a spin still going on is not in it yet)
     */
    public long spinNanos() {
        return spinNanos;
    }

    /**
     * The priority it runs at: its own, or a better one lent by threads blocked on a mutex it
     * holds (FreeBSD's turnstile priority propagation).
     *
     * @return the effective priority
     */
    public int effectivePriority() {
        return effectivePriority(0);
    }

    int effectivePriority(int depth) {
        int p = priority;
        if (depth < 8) {
            for (AdaptiveMutex m : held) {
                for (KThread w : m.blocked) {
                    p = Math.min(p, w.effectivePriority(depth + 1));
                }
            }
        }
        return p;
    }

    boolean mayRunOn(Cpu c) {
        return boundCpu < 0 || boundCpu == c.index;
    }

    @Override
    public String toString() {
        return name;
    }
}
