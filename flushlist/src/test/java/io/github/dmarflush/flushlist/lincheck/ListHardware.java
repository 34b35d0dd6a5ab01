package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;

/**
 * The invalidation ring and the hardware's completion of wait descriptors, for the flush
 * list test: producers write descriptors and advance IQT under the unit lock; one hardware
 * thread ({@link #completeNext}) processes the next published descriptor and does its
 * status write. Thread-safe for that use: {@code published} (IQT) is volatile and written
 * after the ring slots it publishes; {@code completed} (IQH) belongs to the hardware.
 */
final class ListHardware implements InvalidationQueue {
    private final int[] ring;
    /** Descriptors written; guarded by the unit lock. */
    private int emitted;
    /** IQT: descriptors before it are visible to the hardware. */
    private volatile int published;
    /** IQH: descriptors before it are processed. Hardware thread only. */
    private int completed;
    private QiSequencer sequencer;

    ListHardware(int capacity) {
        ring = new int[capacity];
    }

    void attach(QiSequencer s) {
        sequencer = s;
    }

    @Override
    public void ensure(int descriptors) {
        if (emitted + descriptors > ring.length) {
            throw new IllegalStateException("test ring too small: " + ring.length);
        }
    }

    @Override
    public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        ring[emitted++] = seq;
    }

    @Override
    public void advanceTail() {
        published = emitted;
    }

    /**
     * Hardware: processes the next published wait descriptor and writes its sequence
     * number to the status word.
     *
     * @return the sequence number written (unsigned), or -1 if no descriptor was published
     */
    long completeNext() {
        int h = completed;
        if (h == published) {
            return -1;
        }
        int seq = ring[h];
        sequencer.statusWrite(seq);
        completed = h + 1;
        return Integer.toUnsignedLong(seq);
    }
}
