package io.github.dmarflush.sim.kern;

import io.github.dmarflush.sim.lock.SimMutex;
import io.github.dmarflush.sim.lock.SiteStats;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A FreeBSD adaptive mutex ({@code MTX_DEF}) in simulated time, as {@code __mtx_lock_sleep}
 * and {@code __mtx_unlock_sleep} ({@code sys/kern/kern_mutex.c}) behave, with lockstat's
 * {@code adaptive-spin} and {@code adaptive-block} events recorded per call site.
 *
 * <h2>Model</h2>
 * <ul>
 *   <li>A free mutex is taken at once (one acquisition, no event).</li>
 *   <li>A contended acquirer whose owner is on a CPU spins. It looks at the lock word only
 *       at the end of each {@code lock_delay()} round: rounds of {@code 2, 4, 8, ...}
 *       {@code cpu_spinwait()} pauses, capped at the configured maximum, each pause taking
 *       {@link SpinPolicy#pauseNanos()}. When the owner releases, the spinner takes the lock
 *       at its next look if it is still free then; so a spinner that has backed off far can
 *       lose the lock to a thread that comes later (the releaser itself, going round its
 *       loop), as on real hardware.</li>
 *   <li>When a spinner looks and the owner is off CPU (preempted, or blocked on another
 *       lock), it goes to the turnstile: it leaves its CPU and lends the owner its priority.
 *       A release wakes every thread on the turnstile ({@code turnstile_broadcast}); they try
 *       again when they next get a CPU, and may spin again.</li>
 *   <li>One acquisition records at most one spin event and one block event: the block event
 *       carries the time on the turnstile, the spin event the rest of the time from the
 *       first failed attempt to the acquisition (FreeBSD's {@code all_time - sleep_time}),
 *       and only if the acquirer spun at all.</li>
 * </ul>
 *
 * <h2>Views</h2>
 * {@link #site(String)} gives the driver code a {@link Lock} whose {@code lock()} and
 * {@code unlock()} take nothing: they check that the simulated thread whose step is running
 * holds this mutex (or that no simulated thread is running: set-up and end-of-run checks),
 * and throw {@link IllegalMonitorStateException} otherwise. The contention itself is the
 * program's {@link Op.Acquire} and {@link Op.Release}, which the kernel schedules in
 * simulated time.
 *
 * <p>Not thread-safe: it lives on the simulation's one host thread.
 */
public final class AdaptiveMutex implements SimMutex {

    private final Kernel kernel;
    private final String name;
    private final List<Site> sites = new ArrayList<>();
    KThread owner;
    private final Op.Release release = new Op.Release(this);
    /** Threads spinning on it, in the order they started. */
    final List<KThread> spinners = new ArrayList<>(2);
    /** Threads on its turnstile, in the order they blocked. */
    final List<KThread> blocked = new ArrayList<>(2);

    AdaptiveMutex(Kernel kernel, String name) {
        this.kernel = kernel;
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the owner, or null */
    public KThread owner() {
        return owner;
    }

    /**
     * The call site {@code caller}: a {@link Lock} view for the driver code, and the argument
     * of {@link Op.Acquire}.
     *
     * @param caller the call site, a FreeBSD function name
     * @return the site
     */
    @Override
    public Site site(String caller) {
        for (Site s : sites) {
            if (s.stats.caller().equals(caller)) {
                return s;
            }
        }
        Site s = new Site(new SiteStats(name, caller));
        sites.add(s);
        return s;
    }

    @Override
    public List<SiteStats> sites() {
        return sites.stream().map(s -> s.stats).toList();
    }

    @Override
    public void resetStats() {
        sites.forEach(s -> s.stats.reset());
    }

    /** @return the {@link Op.Release} of this mutex */
    public Op.Release release() {
        return release;
    }

    void checkHeld(String what, String caller) {
        if (!kernel.holdsOrOutside(this)) {
            KThread t = kernel.current();
            throw new IllegalMonitorStateException(what + " at " + caller + " of " + name + " by "
                    + (t == null ? "an event outside any simulated thread" : "simulated thread " + t.name())
                    + ", which does not hold it (owner: " + (owner == null ? "none" : owner.name()) + ")");
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** A call site of this mutex. */
    public final class Site implements Lock {
        final SiteStats stats;
        private final Op.Acquire acquire;

        private Site(SiteStats stats) {
            this.stats = stats;
            this.acquire = new Op.Acquire(this);
        }

        /** @return the mutex */
        public AdaptiveMutex mutex() {
            return AdaptiveMutex.this;
        }

        /** @return its statistics */
        public SiteStats stats() {
            return stats;
        }

        /** @return the op that acquires the mutex at this site */
        public Op.Acquire acquire() {
            return acquire;
        }

        /** Checks that the running simulated thread holds the mutex; takes nothing. */
        @Override
        public void lock() {
            checkHeld("lock", stats.caller());
        }

        @Override
        public void lockInterruptibly() {
            lock();
        }

        @Override
        public boolean tryLock() {
            lock();
            return true;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            return tryLock();
        }

        /** Checks that the running simulated thread holds the mutex; releases nothing. */
        @Override
        public void unlock() {
            checkHeld("unlock", stats.caller());
        }

        /**
         * A condition nobody may wait on: a simulated thread cannot block the host thread.
         * Signalling it does nothing (no simulated thread can be waiting).
         */
        @Override
        public Condition newCondition() {
            return new Condition() {
                private UnsupportedOperationException noWait() {
                    return new UnsupportedOperationException("a simulated thread cannot wait on a host condition;"
                            + " model the wait as an Op (Sleep or SpinUntil)");
                }

                @Override
                public void await() {
                    throw noWait();
                }

                @Override
                public void awaitUninterruptibly() {
                    throw noWait();
                }

                @Override
                public long awaitNanos(long nanosTimeout) {
                    throw noWait();
                }

                @Override
                public boolean await(long time, TimeUnit unit) {
                    throw noWait();
                }

                @Override
                public boolean awaitUntil(Date deadline) {
                    throw noWait();
                }

                @Override
                public void signal() {
                }

                @Override
                public void signalAll() {
                }
            };
        }

        @Override
        public String toString() {
            return name + "@" + stats.caller();
        }
    }
}
