package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread-safe stand-in for a DMAR unit's invalidation queue, ICS register and
 * completion interrupt, for the wakeup-protocol test: a ring of emitted wait descriptors,
 * IQT ({@code published}), IQH ({@code completed}), ICS.IWC, and a pending QI task.
 *
 * <ul>
 *   <li>Producers write descriptors and advance IQT holding the unit lock.</li>
 *   <li>One hardware thread calls {@link #completeNext}: it waits until a descriptor is
 *       published, records it as completed (the ground truth the safety checks read),
 *       then does its status write, then sets IWC and, on IWC 0 -> 1 only, raises the
 *       interrupt, which makes the QI task pending (a taskqueue: one pending flag).</li>
 *   <li>One task thread calls {@link #awaitInterrupt} and runs the task once per
 *       {@code true}.</li>
 * </ul>
 * The waits for "published" and "interrupt pending" use this object's monitor; they are
 * the environment's, not the protocol's, and never hold the unit lock.
 */
final class QiHardware implements InvalidationQueue, InvalidationCompletionStatus {

    private final int[] seqs;
    private final boolean[] interrupts;
    /** Descriptors written; guarded by the unit lock. */
    private int emitted;
    /** IQT. Written under the unit lock after the slots it publishes. */
    private volatile int published;
    /** IQH: descriptors the hardware has finished; written before their status write. */
    private volatile int completed;
    /** ICS.IWC. */
    private final AtomicBoolean iwc = new AtomicBoolean();
    /** Completion steps fully done (status write and interrupt included); guarded by this. */
    private int finished;
    /** The QI task is queued; guarded by this. */
    private boolean taskPending;
    private WaitProtocol protocol;

    QiHardware(int capacity) {
        seqs = new int[capacity];
        interrupts = new boolean[capacity];
    }

    void attach(WaitProtocol p) {
        protocol = p;
    }

    @Override
    public void ensure(int descriptors) {
        if (emitted + descriptors > seqs.length) {
            throw new IllegalStateException("test ring too small: " + seqs.length);
        }
    }

    @Override
    public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        seqs[emitted] = seq;
        interrupts[emitted] = interrupt;
        emitted++;
    }

    /** @return the ring index of the last descriptor written; under the unit lock */
    int lastEmitted() {
        return emitted - 1;
    }

    /**
     * @param seq a sequence number (unsigned)
     * @return the ring index of the last descriptor written with it, or -1; under the unit lock
     */
    int lastIndexOf(int seq) {
        for (int i = emitted - 1; i >= 0; i--) {
            if (seqs[i] == seq) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void advanceTail() {
        published = emitted;
        synchronized (this) {
            notifyAll();
        }
    }

    /** @return how many descriptors the hardware has finished (IQH) */
    int completed() {
        return completed;
    }

    /**
     * Hardware: waits for the next published wait descriptor and processes it.
     *
     * @return its status data (unsigned)
     */
    long completeNext() {
        int h;
        synchronized (this) {
            while ((h = completed) == published) {
                waitUninterruptibly();
            }
        }
        completed = h + 1;
        protocol.statusWrite(seqs[h]);
        boolean raise = interrupts[h] && !iwc.getAndSet(true);
        synchronized (this) {
            if (raise) {
                taskPending = true;
            }
            finished++;
            notifyAll();
        }
        return Integer.toUnsignedLong(seqs[h]);
    }

    /**
     * Task thread: waits until the completion interrupt has queued the QI task, or until
     * the hardware has finished {@code descriptors} descriptors with no task pending.
     *
     * @param descriptors the number of descriptors the scenario makes the hardware process
     * @return true if the task is to run once more, false when there is nothing left
     */
    boolean awaitInterrupt(int descriptors) {
        synchronized (this) {
            while (!taskPending && finished < descriptors) {
                waitUninterruptibly();
            }
            if (taskPending) {
                taskPending = false;
                return true;
            }
            return false;
        }
    }

    @Override
    public boolean iwc() {
        return iwc.get();
    }

    @Override
    public void clearIwc() {
        iwc.set(false);
    }

    private void waitUninterruptibly() {
        try {
            wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("environment thread interrupted", e);
        }
    }
}
