package io.github.dmarflush.flushlist;

import java.util.concurrent.locks.ReentrantLock;

/** Builds either implementation with its lock, so one test body covers both. */
enum ListKind {
    ZOMBIE_HEAD, LOCKED;

    final class Fixture {
        final ReentrantLock unitLock = new ReentrantLock();
        final RecordingReclaimer reclaimer = new RecordingReclaimer(ListKind.this == ZOMBIE_HEAD);
        final TlbFlushList<TestEntry> list;

        Fixture() {
            list = newList(reclaimer);
        }

        /** Another list of this kind on this fixture's unit lock, with its own reclaimer. */
        TlbFlushList<TestEntry> newList(Reclaimer<TestEntry> r) {
            return ListKind.this == ZOMBIE_HEAD
                    ? new ZombieHeadFlushList<>(new TestEntry(-1), r)
                    : new LockedFlushList<>(unitLock, r);
        }

        /** Enqueues a fresh entry (not from the pool) on {@code l} under the unit lock. */
        TestEntry enqueueNew(TlbFlushList<TestEntry> l, int id, long gseq) {
            TestEntry e = new TestEntry(id);
            e.setWaitSeq(gseq);
            enqueueLocked(l, e);
            return e;
        }

        /** Enqueues {@code e} on {@code l} under the unit lock. */
        void enqueueLocked(TlbFlushList<TestEntry> l, TestEntry e) {
            unitLock.lock();
            try {
                l.enqueue(e);
            } finally {
                unitLock.unlock();
            }
        }

        /** Enqueues under the unit lock, as a producer must. */
        TestEntry enqueue(int id, long gseq) {
            TestEntry e = reclaimer.obtain(id);
            e.setWaitSeq(gseq);
            unitLock.lock();
            try {
                list.enqueue(e);
                reclaimer.producerTail = e;
            } finally {
                unitLock.unlock();
            }
            return e;
        }
    }

    Fixture fixture() {
        return new Fixture();
    }
}
