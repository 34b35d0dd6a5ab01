package io.github.dmarflush.flushlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * Enqueue and drain allocate nothing: counted with the JVM's per-thread allocation counter
 * (bytes, not time), over a million operations on elements the test owns.
 */
class ZeroAllocationTest {

    private static final int OPS = 1_000_000;

    private static long allocatedBytes() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return mx.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** Moves retired elements back into a fixed ring so no collection grows. */
    static final class Ring implements Reclaimer<FlushEntry> {
        final FlushEntry[] slots;
        int take;
        int put;
        long released;

        Ring(int n) {
            slots = new FlushEntry[n];
            for (int i = 0; i < n; i++) {
                slots[i] = new FlushEntry();
            }
            put = 0;
            take = 0;
        }

        FlushEntry obtain() {
            FlushEntry e = slots[take];
            slots[take] = null;
            take = (take + 1) % slots.length;
            return e;
        }

        @Override
        public void releaseItem(FlushEntry entry) {
            released++;
        }

        @Override
        public void retireElement(FlushEntry element) {
            slots[put] = element;
            put = (put + 1) % slots.length;
        }
    }

    private static long run(TlbFlushList<FlushEntry> list, Ring ring, ReentrantLock lock, int ops) {
        long seq = 0;
        SeqProcessed all = g -> true;
        for (int i = 0; i < ops; i++) {
            FlushEntry e = ring.obtain();
            e.setWaitSeq(++seq);
            lock.lock();
            try {
                list.enqueue(e);
            } finally {
                lock.unlock();
            }
            if ((i & 7) == 7) {
                list.drain(all);
            }
        }
        list.drain(all);
        return seq;
    }

    @Test
    void zombieHeadListAllocatesNothingPerOperation() {
        Ring ring = new Ring(16);
        ReentrantLock lock = new ReentrantLock();
        var list = new ZombieHeadFlushList<FlushEntry>(new FlushEntry(), ring);
        run(list, ring, lock, 200_000); // warm up, let the JIT compile
        long before = allocatedBytes();
        run(list, ring, lock, OPS);
        long bytes = allocatedBytes() - before;
        assertEquals(1_200_000, ring.released);
        // Well under one byte per operation: no per-operation allocation.
        assertTrue(bytes < OPS / 100, "allocated " + bytes + " bytes over " + OPS + " enqueue+drain");
    }

    @Test
    void lockedListAllocatesNothingPerOperationUncontended() {
        Ring ring = new Ring(16);
        ReentrantLock lock = new ReentrantLock();
        var list = new LockedFlushList<FlushEntry>(lock, ring);
        // The ring must return the retired element before obtain() reaches its slot: the
        // locked list retires every element (no zombie), so 16 slots are plenty.
        run(list, ring, lock, 200_000);
        long before = allocatedBytes();
        run(list, ring, lock, OPS);
        long bytes = allocatedBytes() - before;
        assertEquals(1_200_000, ring.released);
        assertTrue(bytes < OPS / 100, "allocated " + bytes + " bytes over " + OPS + " enqueue+drain");
    }
}
