package io.github.dmarflush.seeded.variants;

import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.seeded.WaitSequencer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

// SEEDED BUG M4: processed() compares gen and seq as signed 32-bit ints.
// A copy of QiSequencer with that one change, marked in the code below, for the
// seeded-bugs matrix (module seeded-bugs; never in the flushlist jar). It implements
// WaitSequencer so that the test harnesses drive it as they drive the library.

/**
 * The queued-invalidation wait-sequence protocol of one DMAR unit: (gen, seq) allocation
 * with wraparound, the {@code processed} test, and synchronous waiters, as FreeBSD's
 * {@code iommu_qi_emit_wait_seq}, {@code iommu_qi_seq_processed} and
 * {@code iommu_qi_wait_for_seq} ({@code sys/x86/iommu/iommu_utils.c}) with the
 * {@code inv_waitd_seq}, {@code inv_waitd_gen}, {@code inv_waitd_seq_hw} and
 * {@code inv_seq_waiters} fields of {@code struct x86_unit_common}.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li>{@code nextSeq} (starts at 1) is guarded by the unit lock. {@code gen} (starts at
 *       0) and {@code waiters} are written only under the unit lock but read without it
 *       (by the drain and by the QI task), so they are volatile.</li>
 *   <li>{@code seqHw} is the status word the hardware writes when it completes a wait
 *       descriptor with the SW bit ({@link #statusWrite}). Volatile: the drain's read of
 *       it is an acquire, so an invalidation the hardware finished before its status write
 *       is visible to the thread that then releases the IOVA range.</li>
 *   <li>{@code processed(g, s) = g < gen || (g == gen && s <= seqHw)}, every comparison
 *       unsigned. {@code gen} is read before {@code seqHw}.</li>
 *   <li>Wraparound: when {@code nextSeq} reaches {@code 0xFFFFFFFF}, that number is used
 *       for one wait descriptor without interrupt, the tail is advanced, and the caller
 *       spins (holding the lock) until it is processed; then the generation moves on and
 *       numbering restarts at 1. Every entry of the old generation is then processed.</li>
 *   <li><b>Departure from FreeBSD, on purpose:</b> after that spin {@code seqHw} is
 *       {@code 0xFFFFFFFF}, and FreeBSD leaves it so. With {@code gen} already incremented,
 *       {@code processed(gen, s)} is then true for every {@code s} until the hardware's first
 *       status write of the new generation: the entries unloaded after the wrapping one,
 *       {@code (gen, 2)} onward, would be released before the hardware processed their
 *       invalidations (TLC finds it: {@code tla/src/tla/WrapFreeBSD.cfg}). This class writes
 *       {@code seqHw = 0} before incrementing {@code gen}; the hardware has no status write
 *       pending at that point, since it has completed the last descriptor of the ring. A
 *       drain that reads the old {@code gen} together with the reset {@code seqHw} sees "not
 *       processed", which only delays a release.</li>
 *   <li>Lost wakeups: a synchronous waiter increments {@code waiters}
 *       ({@link #registerWaiter}) before it advances the tail past its wait descriptor.
 *       The QI task reads {@code waiters} after draining and, if non-zero, signals the
 *       condition while holding the unit lock, so the signal cannot fall between a
 *       waiter's {@code processed} check and its sleep.</li>
 * </ul>
 *
 * <h2>Thread-safety</h2>
 * {@link #emitWaitSeq}, {@link #registerWaiter}, {@link #waitForSeq} and {@link #quiesce}
 * require the unit lock held by the caller (checked when it is a {@link ReentrantLock}). {@link #processed}
 * needs no lock. {@link #statusWrite} is the hardware's store. {@link #wakeupWaiters} takes
 * the lock itself.
 */
public final class QiSequencerM4 implements SeqProcessed, WaitSequencer {

    /** FreeBSD sleeps {@code hz} ticks, one second, before it re-checks. */
    public static final long DEFAULT_SLEEP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Lock unitLock;
    private final Condition seqWaiters;
    private final InvalidationQueue queue;
    private final long sleepTimeoutNanos;

    /** inv_waitd_seq: the next sequence number to hand out. Guarded by the unit lock. */
    private int nextSeq;
    /** inv_waitd_gen: written under the unit lock, read without it. */
    private volatile int gen;
    /** inv_waitd_seq_hw: the hardware's status write target. */
    private volatile int seqHw;
    /** inv_seq_waiters: written under the unit lock, read by the QI task without it. */
    private volatile int waiters;

    // Statistics, written under the unit lock.
    private volatile long generationWraps;
    private volatile long sleeps;
    private volatile long sleepTimeouts;

    private QiSequencerM4(Builder b) {
        this.unitLock = b.unitLock;
        this.seqWaiters = b.unitLock.newCondition();
        this.queue = b.queue;
        this.sleepTimeoutNanos = b.sleepTimeoutNanos;
        this.nextSeq = b.initialSeq;
        this.gen = b.initialGen;
        this.seqHw = b.initialSeqHw;
    }

    /**
     * Starts a builder for a sequencer at (gen 0, seq 1), with the one-second sleep.
     *
     * @param unitLock the DMAR unit lock; its condition is where synchronous waiters sleep
     * @param queue the unit's invalidation queue, where wait descriptors go
     * @return a builder
     * @throws NullPointerException if an argument is null
     */
    public static Builder builder(Lock unitLock, InvalidationQueue queue) {
        return new Builder(unitLock, queue);
    }

    /**
     * Whether the wait descriptor {@code gseq} has been processed. As
     * {@code iommu_qi_seq_processed}, with unsigned comparisons. Needs no lock.
     *
     * @param gseq a packed (gen, seq)
     * @return true if the hardware has written a sequence number at or past it in its
     *     generation, or its generation is over
     */
    @Override
    public boolean processed(long gseq) {
        int g = gen; // volatile load first: a newer gen implies the seqHw reset below
        int eg = GenSeq.gen(gseq);
        int cmp = Integer.compare(eg, g); // SEEDED BUG M4: signed
        return cmp < 0 || (cmp == 0 && GenSeq.seq(gseq) <= seqHw); // SEEDED BUG M4: signed
    }

    /**
     * Hands out the next (gen, seq) and, if {@code emitWait}, writes a wait descriptor for
     * it with the IF and SW bits. As {@code iommu_qi_emit_wait_seq}. Does not advance the
     * tail (except while wrapping, see the class notes). The caller holds the unit lock.
     *
     * <p>An entry given a sequence number without its own wait descriptor
     * ({@code emitWait == false}, batch coalescing) is processed once a later wait
     * descriptor's status write covers it.
     *
     * @param emitWait whether to write a wait descriptor (with interrupt) for this number
     * @return the packed (gen, seq)
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock} not
     *     held by the caller
     */
    public long emitWaitSeq(boolean emitWait) {
        assertLocked("emitWaitSeq");
        if (nextSeq == GenSeq.SEQ_WRAP) {
            long last = GenSeq.of(gen, nextSeq);
            queue.ensure(1);
            queue.emitWaitDescriptor(nextSeq, false, true, false);
            queue.advanceTail();
            while (!processed(last)) {
                Thread.onSpinWait();
            }
            seqHw = 0; // see "Departure from FreeBSD" in the class notes; before gen++
            gen = gen + 1;
            nextSeq = 1;
            generationWraps++;
        }
        int seq = nextSeq++;
        long gseq = GenSeq.of(gen, seq);
        if (emitWait) {
            queue.ensure(1);
            queue.emitWaitDescriptor(seq, true, true, false);
        }
        return gseq;
    }

    /**
     * Announces a synchronous waiter: {@code inv_seq_waiters++}. Call it with the unit lock
     * held, <em>before</em> advancing the queue tail past the wait descriptor you will wait
     * for, then call {@link #waitForSeq}, which undoes it.
     *
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock} not
     *     held by the caller
     */
    public void registerWaiter() {
        assertLocked("registerWaiter");
        waiters = waiters + 1;
    }

    /**
     * Waits until {@code gseq} is processed, then deregisters the waiter. As
     * {@code iommu_qi_wait_for_seq}. The caller holds the unit lock and has called
     * {@link #registerWaiter} before advancing the tail. With {@code nowait} it spins with
     * the lock held (a context that may not sleep); otherwise it sleeps on the unit lock's
     * condition, releasing the lock, for at most the sleep timeout per round, and re-checks.
     * Thread interrupts do not end the wait (as {@code msleep} without {@code PCATCH}); the
     * interrupt status is restored on return.
     *
     * @param gseq the packed (gen, seq) to wait for, as returned by {@link #emitWaitSeq}
     * @param nowait spin instead of sleeping
     * @throws IllegalStateException if no waiter is registered
     * @throws IllegalArgumentException if {@code gseq} is at or past the next (gen, seq) to
     *     hand out: no status write can ever cover it, so the wait would never end (the
     *     registration is undone)
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock} not
     *     held by the caller
     */
    public void waitForSeq(long gseq, boolean nowait) {
        assertLocked("waitForSeq");
        if (waiters <= 0) {
            throw new IllegalStateException("waitForSeq " + GenSeq.toString(gseq)
                    + " without registerWaiter(): register before advancing the queue tail,"
                    + " or the QI task can miss this waiter");
        }
        int genCmp = Integer.compareUnsigned(GenSeq.gen(gseq), gen);
        if (genCmp > 0 || (genCmp == 0 && Integer.compareUnsigned(GenSeq.seq(gseq), nextSeq) >= 0)) {
            waiters = waiters - 1;
            throw new IllegalArgumentException("waitForSeq " + GenSeq.toString(gseq)
                    + " was never handed out by emitWaitSeq (the next is "
                    + GenSeq.toString(GenSeq.of(gen, nextSeq)) + "); it would wait forever");
        }
        boolean interrupted = false;
        try {
            while (!processed(gseq)) {
                if (nowait) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeps++;
                if (sleepTimeoutNanos == 0) {
                    seqWaiters.awaitUninterruptibly();
                } else {
                    try {
                        if (seqWaiters.awaitNanos(sleepTimeoutNanos) <= 0 && !processed(gseq)) {
                            sleepTimeouts++;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
        } finally {
            waiters = waiters - 1;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Emits a wait descriptor, advances the tail and waits for it: every descriptor queued
     * before has then completed. As the quiesce step of {@code iommu_qi_common_fini}. The
     * caller holds the unit lock.
     *
     * @param nowait spin instead of sleeping
     * @return the packed (gen, seq) that was waited for
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock} not
     *     held by the caller
     */
    public long quiesce(boolean nowait) {
        long gseq = emitWaitSeq(true);
        registerWaiter();
        queue.advanceTail();
        waitForSeq(gseq, nowait);
        return gseq;
    }

    /**
     * If a synchronous waiter is registered, takes the unit lock and wakes all waiters. The
     * QI task's last step, as the {@code wakeup(&inv_seq_waiters)} under the unit lock at
     * the end of {@code dmar_qi_task}. Taking the lock guarantees that a waiter that saw "not
     * processed" is already asleep on the condition, so the signal is not lost. Call it
     * without the unit lock (with a {@link ReentrantLock} held by the caller it still works,
     * re-entering the lock).
     */
    public void wakeupWaiters() {
        if (waiters > 0) {
            unitLock.lock();
            try {
                seqWaiters.signalAll();
            } finally {
                unitLock.unlock();
            }
        }
    }

    /**
     * The hardware's status write of a wait descriptor with the SW bit: stores the
     * descriptor's status data into {@code inv_waitd_seq_hw} (a volatile store). Called by
     * the hardware (model) after it has completed every descriptor before that one.
     *
     * @param seq the status data (unsigned)
     */
    public void statusWrite(int seq) {
        seqHw = seq;
    }

    /** @return the last status write, {@code inv_waitd_seq_hw} (unsigned) */
    public int seqHw() {
        return seqHw;
    }

    /** @return the current generation, {@code inv_waitd_gen} (unsigned) */
    public int gen() {
        return gen;
    }

    /**
     * The next sequence number to hand out. Exact under the unit lock.
     *
     * @return {@code inv_waitd_seq} (unsigned)
     */
    public int nextSeq() {
        return nextSeq;
    }

    /** @return the number of registered synchronous waiters, {@code inv_seq_waiters} */
    public int waiters() {
        return waiters;
    }

    /** @return how many times the sequence number wrapped to a new generation */
    public long generationWraps() {
        return generationWraps;
    }

    /** @return how many times a waiter went to sleep on the condition */
    public long sleeps() {
        return sleeps;
    }

    /**
     * Sleeps that ended by their timeout with the sequence still unprocessed: the hardware
     * was slower than the timeout. It does not reveal a lost wakeup: by the time a sleep
     * whose wakeup was lost times out, the sequence is usually processed, and that sleep is
     * not counted here. To see lost wakeups, count timed-out waits on the condition itself
     * (as the jcstress tests do).
     *
     * @return the count of such sleeps
     */
    public long sleepTimeouts() {
        return sleepTimeouts;
    }

    private void assertLocked(String op) {
        if (unitLock instanceof ReentrantLock rl && !rl.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(op + " requires the unit lock held by the calling thread");
        }
    }

    /** Configures a {@link QiSequencerM4}. Not thread-safe. */
    public static final class Builder {
        private final Lock unitLock;
        private final InvalidationQueue queue;
        private long sleepTimeoutNanos = DEFAULT_SLEEP_TIMEOUT_NANOS;
        private int initialGen;
        private int initialSeq = 1;
        private int initialSeqHw;

        private Builder(Lock unitLock, InvalidationQueue queue) {
            this.unitLock = Objects.requireNonNull(unitLock, "unitLock");
            this.queue = Objects.requireNonNull(queue, "queue");
        }

        /**
         * The longest a waiter sleeps before it re-checks on its own. 0 means no timeout:
         * only a wakeup ends a sleep, which makes a lost wakeup a hang (for model checking).
         *
         * @param timeout the timeout, 0 or more; saturates at {@code Long.MAX_VALUE} ns
         * @param unit its unit
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is negative
         * @throws NullPointerException if {@code unit} is null
         */
        public Builder sleepTimeout(long timeout, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            if (timeout < 0) {
                throw new IllegalArgumentException("sleep timeout must be 0 (none) or positive, got " + timeout);
            }
            this.sleepTimeoutNanos = unit.toNanos(timeout);
            return this;
        }

        /**
         * Starts numbering at (gen, seq) instead of (0, 1), with the hardware status word
         * at {@code seq - 1}, as if {@code seq - 1} descriptors had completed: lets tests
         * and models start near the {@code 0xFFFFFFFF} wraparound.
         *
         * @param gen the initial generation (unsigned)
         * @param seq the next sequence number to hand out, not 0 (unsigned)
         * @return this builder
         * @throws IllegalArgumentException if {@code seq} is 0
         */
        public Builder startAt(int gen, int seq) {
            if (seq == 0) {
                throw new IllegalArgumentException("sequence numbers start at 1; 0 is the status word's reset value");
            }
            this.initialGen = gen;
            this.initialSeq = seq;
            this.initialSeqHw = seq - 1;
            return this;
        }

        /** @return a new sequencer */
        public QiSequencerM4 build() {
            return new QiSequencerM4(this);
        }
    }
}
