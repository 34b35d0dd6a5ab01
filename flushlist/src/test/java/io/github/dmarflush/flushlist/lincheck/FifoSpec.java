package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.qi.GenSeq;
import java.util.ArrayDeque;

/**
 * The sequential specification of {@link FlushListModel}: a FIFO of (item, seq), a
 * sequence counter, and the hardware's position. What the drain must return follows from
 * it alone: every entry at the front whose sequence number the hardware has written,
 * in enqueue order, and nothing else.
 *
 * <p>Sequence numbers are kept as {@code long}; the scenarios are far too short to reach
 * {@code 0xFFFFFFFF}, so the specification needs no wrap.
 */
public final class FifoSpec {

    private final ArrayDeque<long[]> waiting = new ArrayDeque<>();
    private long nextSeq = Integer.toUnsignedLong(FlushListModel.START_SEQ);
    private long published = nextSeq - 1;
    private long completed = nextSeq - 1;

    /**
     * @param item the item
     * @return the (gen 0, seq) handed out
     */
    public long enqueue(int item) {
        long seq = nextSeq++;
        waiting.addLast(new long[] {item, seq});
        published = seq;
        return GenSeq.of(0, (int) seq);
    }

    /** @return the sequence number completed, or -1 if none is published and pending */
    public long completeNextWaitDescriptor() {
        if (completed == published) {
            return -1;
        }
        return ++completed;
    }

    /** @return the items of the processed prefix, which leaves the FIFO */
    public Items drain() {
        Items out = new Items();
        while (!waiting.isEmpty() && waiting.peekFirst()[1] <= completed) {
            out.add((int) waiting.pollFirst()[0]);
        }
        return out;
    }
}
