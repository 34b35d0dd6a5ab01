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
            list = ListKind.this == ZOMBIE_HEAD
                    ? new ZombieHeadFlushList<>(new TestEntry(-1), reclaimer)
                    : new LockedFlushList<>(unitLock, reclaimer);
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
