package io.github.dmarflush.sim.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An instrumented adaptive mutex, in the manner of a FreeBSD {@code MTX_DEF} mutex observed
 * by lockstat(1): an uncontended acquisition is one CAS; a contended one spins for a bounded
 * time hoping the owner releases soon (a spin event), and if it does not, sleeps (a block
 * event). Events and wait times are recorded per call site.
 *
 * <p>Call sites are explicit: {@link #site(String)} returns a {@link Lock} view of this
 * mutex that attributes its events to one caller name. Hand each component the view for its
 * own FreeBSD function ({@code dmar_qi_task}, {@code iommu_domain_unload}, ...), so the
 * report reads like lockstat's "Caller" column without walking stacks.
 *
 * <p>Differences from a kernel adaptive mutex, stated so the figures are read correctly: the
 * spin is bounded by time ({@code spinNanos}) instead of "while the owner is running on a
 * CPU", because a JVM cannot see whether the owner thread is on a CPU; and a thread that
 * re-acquires the lock inside {@link Condition#await} is not counted (the sleep queue
 * handles it, as {@code msleep} does).
 *
 * <p>Thread-safe. Not reentrant in spirit (FreeBSD mutexes are not recursive unless asked),
 * although the underlying {@link ReentrantLock} would allow it.
 */
public final class LockstatMutex implements SimMutex {

    private final String name;
    private final long spinNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<SiteStats> sites = new ArrayList<>();

    /**
     * @param name the lock's name in reports, e.g. {@code dmarhw} (the DMAR unit lock) or
     *     {@code iodom} (the domain lock)
     * @param spin how long a contended acquisition spins before it blocks
     * @param unit the unit of {@code spin}
     * @throws IllegalArgumentException if {@code spin} is negative
     */
    public LockstatMutex(String name, long spin, TimeUnit unit) {
        this.name = Objects.requireNonNull(name, "name");
        if (spin < 0) {
            throw new IllegalArgumentException("spin time must be >= 0, got " + spin);
        }
        this.spinNanos = unit.toNanos(spin);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * A {@link Lock} view of this mutex that records its contention under {@code caller}.
     * Views for the same caller share their statistics.
     *
     * @param caller the call site, a FreeBSD function name
     * @return the view
     */
    @Override
    public synchronized Lock site(String caller) {
        for (SiteStats s : sites) {
            if (s.caller().equals(caller)) {
                return new Site(s);
            }
        }
        SiteStats s = new SiteStats(name, caller);
        sites.add(s);
        return new Site(s);
    }

    @Override
    public synchronized List<SiteStats> sites() {
        return List.copyOf(sites);
    }

    @Override
    public synchronized void resetStats() {
        sites.forEach(SiteStats::reset);
    }

    /** @return whether any thread holds the mutex (a snapshot) */
    public boolean isLocked() {
        return lock.isLocked();
    }

    /** @return whether the calling thread holds the mutex */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    private void acquire(SiteStats stats) {
        stats.acquired();
        if (lock.tryLock()) {
            return;
        }
        long start = System.nanoTime();
        long spunUntil = start;
        if (spinNanos > 0) {
            int i = 0;
            for (;;) {
                Thread.onSpinWait();
                if (!lock.isLocked() && lock.tryLock()) {
                    stats.spun(System.nanoTime() - start);
                    return;
                }
                if ((++i & 15) == 0) {
                    spunUntil = System.nanoTime();
                    if (spunUntil - start >= spinNanos) {
                        break;
                    }
                }
            }
            stats.spun(spunUntil - start);
        }
        lock.lock();
        stats.blocked(System.nanoTime() - spunUntil);
    }

    /** A call-site view. */
    private final class Site implements Lock {
        private final SiteStats stats;

        Site(SiteStats stats) {
            this.stats = stats;
        }

        @Override
        public void lock() {
            acquire(stats);
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            acquire(stats);
        }

        @Override
        public boolean tryLock() {
            boolean ok = lock.tryLock();
            if (ok) {
                stats.acquired();
            }
            return ok;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            boolean ok = lock.tryLock(time, unit);
            if (ok) {
                stats.acquired();
            }
            return ok;
        }

        @Override
        public void unlock() {
            lock.unlock();
        }

        @Override
        public Condition newCondition() {
            return lock.newCondition();
        }

        @Override
        public String toString() {
            return name + "@" + stats.caller();
        }
    }
}
