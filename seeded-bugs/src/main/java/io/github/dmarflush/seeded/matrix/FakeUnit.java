package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.seeded.WaitSequencer;
import java.util.ArrayList;
import java.util.List;

/**
 * The unit checks' stand-in for a DMAR unit's invalidation queue, ICS register and completion
 * interrupt: wait descriptors in a ring, IQT ({@link #tail}), IQH ({@link #completed}),
 * ICS.IWC, set on a completion with the IF bit and raising the interrupt only on IWC 0 -> 1.
 * The hardware runs when the check says so ({@link #completeUpTo}), or at each tail advance
 * ({@link #autoComplete}); {@link #onInterrupt} runs on the completing thread, as if the QI
 * task ran at that instant. Guarded by the caller, except the volatile counters.
 */
class FakeUnit implements InvalidationQueue, InvalidationCompletionStatus {

    record Descriptor(int seq, boolean interrupt, boolean statusWrite) {
    }

    final List<Descriptor> ring = new ArrayList<>();
    /** IQT: descriptors before it are visible to the hardware. */
    volatile int tail;
    /** IQH: descriptors before it are completed (status write done). */
    volatile int completed;
    volatile boolean iwc;
    boolean autoComplete;
    Runnable onInterrupt;
    Runnable onAdvanceTail;
    private WaitSequencer sequencer;

    void attach(WaitSequencer s) {
        sequencer = s;
    }

    @Override
    public void ensure(int descriptors) {
    }

    @Override
    public synchronized void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        ring.add(new Descriptor(seq, interrupt, statusWrite));
    }

    /** @return the ring index of the last descriptor written */
    synchronized int lastEmitted() {
        return ring.size() - 1;
    }

    @Override
    public void advanceTail() {
        synchronized (this) {
            tail = ring.size();
        }
        if (onAdvanceTail != null) {
            onAdvanceTail.run();
        }
        if (autoComplete) {
            completeUpTo(tail);
        }
    }

    /** The hardware: completes published descriptors up to (excluding) {@code upTo}. */
    void completeUpTo(int upTo) {
        boolean raise = false;
        synchronized (this) {
            if (upTo > tail) {
                throw new IllegalStateException("the hardware cannot run past IQT");
            }
            for (int h = completed; h < upTo; h++) {
                Descriptor d = ring.get(h);
                completed = h + 1;
                if (d.statusWrite()) {
                    sequencer.statusWrite(d.seq());
                }
                if (d.interrupt() && !iwc) {
                    iwc = true;
                    raise = true;
                }
            }
        }
        if (raise && onInterrupt != null) {
            onInterrupt.run();
        }
    }

    void completeAll() {
        completeUpTo(tail);
    }

    @Override
    public boolean iwc() {
        return iwc;
    }

    @Override
    public void clearIwc() {
        iwc = false;
    }
}
