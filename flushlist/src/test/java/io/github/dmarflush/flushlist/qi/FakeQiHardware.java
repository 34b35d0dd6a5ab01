package io.github.dmarflush.flushlist.qi;

import java.util.ArrayList;
import java.util.List;

/**
 * A minimal stand-in for the unit's queue and ICS register, with the hardware side driven
 * explicitly by the test: {@link #completeUpTo} processes published wait descriptors in
 * ring order. With {@code autoComplete} the hardware processes each descriptor as soon as
 * the tail passes it. Not thread-safe except where noted.
 */
class FakeQiHardware implements InvalidationQueue, InvalidationCompletionStatus {

    record WaitDescriptor(int seq, boolean interrupt, boolean statusWrite) {
    }

    final List<WaitDescriptor> ring = new ArrayList<>();
    /** Descriptors before this index are visible to the hardware (IQT). */
    int tail;
    /** Descriptors before this index are processed (IQH). */
    int head;
    volatile boolean iwc;
    int interrupts;
    int ensureCalls;
    /**
     * Descriptors the last {@link #ensure} made room for and that are not written yet. The
     * ring is unbounded here, but the contract is not: a descriptor written without
     * {@code ensure} could overwrite one the hardware has not read on a full ring.
     */
    int room;
    boolean autoComplete;
    /** inv_seq_waiters when IQT was last written: a waiter must be counted before. */
    int waitersAtLastAdvance = -1;
    QiSequencer sequencer;

    @Override
    public void ensure(int descriptors) {
        ensureCalls++;
        room = descriptors;
    }

    @Override
    public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        if (room <= 0) {
            throw new AssertionError("wait descriptor 0x" + Integer.toHexString(seq)
                    + " written without queue.ensure(): on a full ring it overwrites a descriptor"
                    + " the hardware has not read yet");
        }
        room--;
        ring.add(new WaitDescriptor(seq, interrupt, statusWrite));
    }

    @Override
    public void advanceTail() {
        waitersAtLastAdvance = sequencer == null ? -1 : sequencer.waiters();
        tail = ring.size();
        if (autoComplete) {
            completeUpTo(tail);
        }
    }

    /** Hardware: processes published descriptors up to (excluding) index {@code upTo}. */
    void completeUpTo(int upTo) {
        if (upTo > tail) {
            throw new IllegalStateException("hardware cannot run past IQT");
        }
        for (; head < upTo; head++) {
            WaitDescriptor d = ring.get(head);
            if (d.statusWrite()) {
                sequencer.statusWrite(d.seq());
            }
            if (d.interrupt() && !iwc) {
                iwc = true;
                interrupts++;
            }
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
