package io.github.dmarflush.sim.kern;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * One step of a simulated thread, as its {@link Program} hands them to the {@link Kernel}:
 * the only ways simulated time passes for a thread, or a thread waits.
 */
public sealed interface Op {

    /**
     * Occupies the thread's CPU for {@code nanos} ns of work (the kernel may vary the time, see
     * {@link Kernel}'s {@code runTime}); a preempted run resumes with the time it had left.
     *
     * @param nanos ns of CPU time, 0 or more
     */
    record Run(long nanos) implements Op {
        /** @throws IllegalArgumentException if {@code nanos} is negative */
        public Run {
            if (nanos < 0) {
                throw new IllegalArgumentException("negative run time " + nanos + " ns");
            }
        }
    }

    /**
     * Acquires an adaptive mutex at a call site ({@code mtx_lock}): at once if it is free;
     * otherwise spins while the owner runs on a CPU and blocks on the turnstile when it does
     * not.
     *
     * @param site the mutex and the call site its contention is recorded under
     */
    record Acquire(AdaptiveMutex.Site site) implements Op {
        /** @throws NullPointerException if {@code site} is null */
        public Acquire {
            Objects.requireNonNull(site, "site");
        }
    }

    /**
     * Releases an adaptive mutex the thread holds ({@code mtx_unlock}).
     *
     * @param mutex the mutex
     */
    record Release(AdaptiveMutex mutex) implements Op {
        /** @throws NullPointerException if {@code mutex} is null */
        public Release {
            Objects.requireNonNull(mutex, "mutex");
        }
    }

    /**
     * Busy-waits on the CPU until {@code done} is true, evaluating it now and then every
     * {@code pollNanos} ns (a {@code cpu_spinwait()} loop that re-reads a register).
     *
     * @param done the condition; may have the side effects one loop iteration has
     * @param pollNanos ns per iteration, at least 1
     */
    record SpinUntil(BooleanSupplier done, long pollNanos) implements Op {
        /**
         * @throws NullPointerException if {@code done} is null
         * @throws IllegalArgumentException if {@code pollNanos} is below 1
         */
        public SpinUntil {
            Objects.requireNonNull(done, "done");
            if (pollNanos < 1) {
                throw new IllegalArgumentException("poll interval must be >= 1 ns, got " + pollNanos);
            }
        }
    }

    /**
     * Leaves the CPU and sleeps until {@link Kernel#wakeup(WaitChannel)} on {@code channel}
     * ({@code msleep}/{@code wakeup} without a timeout).
     *
     * @param channel what the thread sleeps on
     */
    record Sleep(WaitChannel channel) implements Op {
        /** @throws NullPointerException if {@code channel} is null */
        public Sleep {
            Objects.requireNonNull(channel, "channel");
        }
    }

    /**
     * Gives up the CPU to the threads of the same or better priority waiting for it, and goes
     * to the back of the run queue ({@code sched_relinquish}); it runs on at once if nobody
     * waits.
     */
    enum Yield implements Op {
        /** The one yield. */
        YIELD
    }

    /** Ends the thread. */
    enum Exit implements Op {
        /** The one exit. */
        EXIT
    }

    /**
     * @param nanos ns of CPU time
     * @return a {@link Run}
     */
    static Op run(long nanos) {
        return new Run(nanos);
    }
}
