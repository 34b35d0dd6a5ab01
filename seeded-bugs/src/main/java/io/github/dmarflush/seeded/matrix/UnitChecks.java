package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.qi.GenSeq;
import io.github.dmarflush.seeded.MsleepLock;
import io.github.dmarflush.seeded.TimeoutRecorder;
import io.github.dmarflush.seeded.UnmapSteps;
import io.github.dmarflush.seeded.Variant;
import io.github.dmarflush.seeded.WaitSequencer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The matrix's "unit" column: short, mostly sequential checks of the flush list, the
 * sequencer and the QI task, in the spirit of flushlist's {@code FlushListTest},
 * {@code QiSequencerTest} and {@code QiTaskTest}, written against a {@link Variant}'s
 * factories so that each runs on the library and on every seeded bug. Each check returns
 * {@code null} when it passes, or says what it saw. The two that need a second thread (the
 * wrap's spin and the wakeup race) drive it to one fixed interleaving; none depends on luck.
 */
final class UnitChecks {

    /** One check. */
    interface Check {
        /**
         * @param v the variant
         * @return null if the check passes, otherwise what went wrong
         * @throws Exception if the check could not run (counts as a failure)
         */
        String run(Variant v) throws Exception;
    }

    /** A named check. */
    record Named(String name, Check check) {
    }

    /** Every check, in the order they run. */
    static final List<Named> ALL = List.of(
            new Named("drainStopsAtTheFirstUnprocessedEntry", UnitChecks::drainStopsAtTheFirstUnprocessedEntry),
            new Named("retiredElementsAreOffTheList", UnitChecks::retiredElementsAreOffTheList),
            new Named("seqsAcrossTheSignBitCompareUnsigned", UnitChecks::seqsAcrossTheSignBitCompareUnsigned),
            new Named("wrapWaitsForTheOldGenerationsLastSeq", UnitChecks::wrapWaitsForTheOldGenerationsLastSeq),
            new Named("seqsAfterTheWrapWaitForTheirStatusWrite", UnitChecks::seqsAfterTheWrapWaitForTheirStatusWrite),
            new Named("waiterRegistersBeforeTheTailAdvance", UnitChecks::waiterRegistersBeforeTheTailAdvance),
            new Named("wakeupCannotFallBetweenACheckAndItsSleep", UnitChecks::wakeupCannotFallBetweenACheckAndItsSleep),
            new Named("entryCompletedBeforeTheIwcClearIsReleasedInThatPass",
                    UnitChecks::entryCompletedBeforeTheIwcClearIsReleasedInThatPass),
            new Named("drainBetweenTheUnmapStepsReleasesNothingUnfinished",
                    UnitChecks::drainBetweenTheUnmapStepsReleasesNothingUnfinished),
            new Named("interruptDrivenTaskReleasesEveryCompletedEntry",
                    UnitChecks::interruptDrivenTaskReleasesEveryCompletedEntry));

    private UnitChecks() {
    }

    /**
     * Runs every check.
     *
     * @param v the variant
     * @return one line per failed check ({@code name: what}); empty if all passed
     */
    static List<String> runAll(Variant v) {
        List<String> failures = new ArrayList<>();
        for (Named n : ALL) {
            String what;
            try {
                what = n.check().run(v);
            } catch (Exception | Error e) {
                what = "threw " + e;
            }
            if (what != null) {
                failures.add(n.name() + ": " + what);
            }
        }
        return failures;
    }

    // ---- the pieces every check uses ----

    /** An entry with an id; ids are released in a list. */
    static final class Entry extends FlushEntry {
        final int id;
        /** The ring index of the wait descriptor that covers it. */
        int descriptor = -1;

        Entry(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "entry " + id;
        }
    }

    /** One unit: lock, fake hardware, the variant's sequencer, list and task. */
    static final class Rig implements Reclaimer<Entry> {
        final Variant variant;
        final ReentrantLock lock;
        final FakeUnit hw;
        final WaitSequencer s;
        final TlbFlushList<Entry> list;
        final Runnable task;
        final List<Integer> released = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final ArrayDeque<Entry> pool = new ArrayDeque<>();

        /**
         * @param v the variant
         * @param hw the fake hardware
         * @param lock the unit lock
         * @param sequencerLock the lock the sequencer sleeps on: {@code lock} or an
         *     {@link MsleepLock} around it
         * @param gen the first generation
         * @param seq the first sequence number
         * @param sleepTimeoutNanos the waiter's sleep timeout, 0 for none
         */
        Rig(Variant v, FakeUnit hw, ReentrantLock lock, Lock sequencerLock, int gen, int seq,
                long sleepTimeoutNanos) {
            this.variant = v;
            this.hw = hw;
            this.lock = lock;
            this.s = v.sequencer(sequencerLock, hw, gen, seq, sleepTimeoutNanos);
            hw.attach(s);
            this.list = v.zombieHeadList(new Entry(0), this);
            this.task = v.qiTask(list, s, hw);
        }

        /** A rig on {@code hw} whose sequencer sleeps on the unit lock, with no timeout. */
        static Rig of(Variant v, FakeUnit hw, int gen, int seq) {
            ReentrantLock lock = new ReentrantLock();
            return new Rig(v, hw, lock, lock, gen, seq, 0);
        }

        @Override
        public void releaseItem(Entry e) {
            if (e.descriptor >= hw.completed) {
                problems.add("released " + e + " " + GenSeq.toString(e.waitSeq())
                        + " before the hardware completed its wait descriptor");
            }
            released.add(e.id);
        }

        @Override
        public void retireElement(Entry e) {
            if (e.isOnList()) {
                problems.add("retired " + e + " while it is still on the list (the zombie head)");
            }
            pool.push(e);
        }

        /**
         * The unmap path under the unit lock: a wait sequence with a descriptor, then the
         * variant's order of fill, link and IQT advance. {@code between} runs after each step.
         */
        Entry unmap(Entry e, Runnable between) {
            lock.lock();
            try {
                long gseq = s.emitWaitSeq(true);
                variant.unmap(new Steps(this, e, gseq, hw.lastEmitted(), between));
                return e;
            } finally {
                lock.unlock();
            }
        }

        Entry unmap(Entry e) {
            return unmap(e, null);
        }

        String problem() {
            return problems.isEmpty() ? null : problems.get(0);
        }
    }

    /** The harness's side of {@link UnmapSteps}, for one entry. */
    private static final class Steps implements UnmapSteps {
        private final Rig r;
        private final Entry e;
        private final long gseq;
        private final int descriptor;
        private final Runnable between;

        Steps(Rig r, Entry e, long gseq, int descriptor, Runnable between) {
            this.r = r;
            this.e = e;
            this.gseq = gseq;
            this.descriptor = descriptor;
            this.between = between;
        }

        private void after() {
            if (between != null) {
                between.run();
            }
        }

        @Override
        public void fill() {
            e.setWaitSeq(gseq);
            e.descriptor = descriptor;
            after();
        }

        @Override
        public void link() {
            r.list.enqueue(e);
            after();
        }

        @Override
        public void advanceTail() {
            r.hw.advanceTail();
            after();
        }
    }

    private static Rig rig(Variant v, int gen, int seq) {
        return Rig.of(v, new FakeUnit(), gen, seq);
    }

    // ---- the checks ----

    /** Five entries, the hardware completes three: the drain releases exactly those, in order (M3). */
    static String drainStopsAtTheFirstUnprocessedEntry(Variant v) {
        Rig r = rig(v, 0, 1);
        for (int i = 1; i <= 5; i++) {
            r.unmap(new Entry(i));
        }
        r.hw.completeUpTo(3);
        r.list.drain(r.s);
        if (!r.released.equals(List.of(1, 2, 3))) {
            return "with 3 of 5 completed the drain released " + r.released + ", not [1, 2, 3]";
        }
        r.hw.completeAll();
        r.list.drain(r.s);
        if (!r.released.equals(List.of(1, 2, 3, 4, 5))) {
            return "with all completed the drains released " + r.released;
        }
        return r.problem();
    }

    /**
     * 200 rounds of unmap, complete, drain, with retired elements recycled: an element handed
     * back is never still on the list, and reusing it is accepted (M1).
     */
    static String retiredElementsAreOffTheList(Variant v) {
        Rig r = rig(v, 0, 1);
        for (int i = 1; i <= 200; i++) {
            Entry e = r.pool.isEmpty() ? new Entry(i) : r.pool.pop();
            r.unmap(e);
            r.hw.completeAll();
            r.list.drain(r.s);
            if (r.problem() != null) {
                return "round " + i + ": " + r.problem();
            }
        }
        return r.released.size() == 200 ? null : "200 unmaps, " + r.released.size() + " released";
    }

    /**
     * Entries at seqs 0x7FFFFFFE, 0x7FFFFFFF and 0x80000000: none released before the
     * hardware completes it, all released after (M4).
     */
    static String seqsAcrossTheSignBitCompareUnsigned(Variant v) {
        Rig r = rig(v, 0, 0x7FFF_FFFE);
        for (int i = 1; i <= 3; i++) {
            r.unmap(new Entry(i));
        }
        r.list.drain(r.s);
        if (r.problem() != null) {
            return r.problem();
        }
        r.hw.completeAll();
        r.list.drain(r.s);
        if (!r.released.equals(List.of(1, 2, 3))) {
            return "all three completed (status word 0x80000000), released only " + r.released;
        }
        return null;
    }

    /**
     * From (7, 0xFFFFFFFE): entry 1 takes the last seq of generation 7; the next number wraps
     * (M5). The wrapping {@code emitWaitSeq} runs on its own thread while the hardware
     * completes nothing, so a correct wrap cannot return: it spins on seq 0xFFFFFFFF. A wrap
     * that returns anyway, with entry 1 reading processed, is M5, whatever the scheduling.
     * After {@value #WRAP_SPIN_MILLIS} ms the wrap is taken to be spinning; the hardware then
     * completes, and the wrap must return in generation 8.
     */
    static String wrapWaitsForTheOldGenerationsLastSeq(Variant v) throws InterruptedException {
        Rig r = rig(v, 7, 0xFFFF_FFFE);
        Entry e1 = r.unmap(new Entry(1));
        AtomicReference<String> seen = new AtomicReference<>();
        Thread wrapper = new Thread(() -> {
            r.lock.lock();
            try {
                r.s.emitWaitSeq(true); // wraps to (8, 1)
                boolean processed = r.s.processed(e1.waitSeq());
                boolean done = r.hw.completed > e1.descriptor;
                if (processed && !done) {
                    seen.set("right after the wrap " + GenSeq.toString(e1.waitSeq())
                            + " reads processed, but the hardware has not completed it");
                } else if (r.s.gen() != 8) {
                    seen.set("the wrap did not start generation 8");
                }
            } catch (RuntimeException | Error e) {
                seen.set("the wrap threw " + e);
            } finally {
                r.lock.unlock();
            }
        }, "wrapping producer");
        wrapper.setDaemon(true);
        wrapper.start();
        wrapper.join(WRAP_SPIN_MILLIS);
        if (wrapper.isAlive()) {
            r.hw.completeAll(); // the wrap's descriptor is published by now: it spins on it
            wrapper.join(10_000);
            if (wrapper.isAlive()) {
                return "the wrap still spins after the hardware completed seq 0xFFFFFFFF";
            }
        }
        return seen.get();
    }

    /** How long the wrap check lets a correct wrap spin before the hardware completes. */
    static final long WRAP_SPIN_MILLIS = 1_000;

    /**
     * From (0, 0xFFFFFFFF): the first number wraps to (1, 1), the second, (1, 2), is queued
     * but not published. Neither may read processed before its status write (FREEBSD_WRAP).
     */
    static String seqsAfterTheWrapWaitForTheirStatusWrite(Variant v) {
        Rig r = rig(v, 0, 0xFFFF_FFFF);
        long first;
        long second;
        r.lock.lock();
        try {
            r.hw.autoComplete = true; // the wrap's spin needs the hardware to run
            first = r.s.emitWaitSeq(true);
            r.hw.autoComplete = false;
            second = r.s.emitWaitSeq(true);
        } finally {
            r.lock.unlock();
        }
        if (r.s.processed(second)) {
            return GenSeq.toString(second) + " reads processed before it was even published (status word 0x"
                    + Integer.toHexString(r.s.seqHw()) + ")";
        }
        if (r.s.processed(first)) {
            return GenSeq.toString(first) + " reads processed before its status write";
        }
        return null;
    }

    /**
     * A synchronous wait ({@code quiesce}, spinning): when IQT moves past the waiter's
     * descriptor, the waiter is already counted in {@code inv_seq_waiters}, or the QI task
     * that the completion schedules may find nobody to wake (M6).
     */
    static String waiterRegistersBeforeTheTailAdvance(Variant v) {
        Rig r = rig(v, 0, 1);
        AtomicInteger seen = new AtomicInteger(-1);
        r.hw.onAdvanceTail = () -> seen.compareAndSet(-1, r.s.waiters());
        r.hw.autoComplete = true;
        r.lock.lock();
        try {
            r.s.quiesce(true);
        } finally {
            r.lock.unlock();
        }
        return seen.get() >= 1 ? null
                : "IQT was advanced past the waiter's descriptor with inv_seq_waiters = " + seen.get();
    }

    /** A unit lock that counts sleeps ended by their timeout with no wakeup during them. */
    private static final class CountingLock extends ReentrantLock implements TimeoutRecorder {
        private static final long serialVersionUID = 1L;
        final AtomicInteger timeouts = new AtomicInteger();

        @Override
        public void recordTimedOutWait() {
            timeouts.incrementAndGet();
        }
    }

    /**
     * The wakeup race, made to happen: a waiter ({@code quiesce}, sleeping, 5 s timeout) finds
     * its seq unprocessed; just before it gets on the sleep channel, the hardware completes the
     * descriptor and the QI task runs on another thread, and the waiter waits until that task
     * has finished or is blocked on the unit lock. A task that wakes under the unit lock cannot finish before the waiter sleeps, and
     * its wakeup ends the sleep; one that wakes without the lock finishes at once, its wakeup
     * finds nobody, and the waiter sleeps until its timeout (M7). Every variant runs on an
     * {@link MsleepLock} (msleep/wakeup semantics) here, so this is also M7's control.
     */
    static String wakeupCannotFallBetweenACheckAndItsSleep(Variant v) throws InterruptedException {
        CountingLock lock = new CountingLock();
        MsleepLock msleep = new MsleepLock(lock);
        Rig r = new Rig(v, new FakeUnit(), lock, msleep, 0, 1, TimeUnit.SECONDS.toNanos(5));
        CountDownLatch taskDone = new CountDownLatch(1);
        Thread[] taskThread = new Thread[1];
        msleep.beforeSleep(() -> {
            if (taskThread[0] != null) {
                return;
            }
            taskThread[0] = new Thread(() -> {
                r.hw.completeAll();
                r.task.run();
                taskDone.countDown();
            }, "hardware and QI task");
            taskThread[0].setDaemon(true);
            taskThread[0].start();
            // Until the task has either finished (a wakeup without the lock) or is blocked on
            // the unit lock this thread holds (a wakeup under it): no fixed delay to outlast.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                while (!taskDone.await(1, TimeUnit.MILLISECONDS) && !lock.hasQueuedThread(taskThread[0])
                        && System.nanoTime() < deadline) {
                    // poll again: the task is still running, or not yet at the lock
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        lock.lock();
        try {
            r.s.quiesce(false);
        } finally {
            lock.unlock();
        }
        if (taskThread[0] == null) {
            return "the waiter never slept";
        }
        taskThread[0].join(5_000);
        return lock.timeouts.get() == 0 ? null
                : "the QI task's wakeup came and went; the waiter slept until its timeout (lost wakeup)";
    }

    /**
     * Entry 1 completes (IWC set); entry 2 completes while the task reads ICS, after its
     * first drain: no new interrupt comes, so that pass must release entry 2 too (M8).
     */
    static String entryCompletedBeforeTheIwcClearIsReleasedInThatPass(Variant v) {
        FakeUnit hw = new FakeUnit() {
            private boolean once;

            @Override
            public boolean iwc() {
                if (!once) {
                    once = true;
                    completeAll(); // entry 2 completes now: IWC is already set, no interrupt
                }
                return super.iwc();
            }
        };
        Rig r = Rig.of(v, hw, 0, 1);
        r.unmap(new Entry(1));
        hw.completeUpTo(1);
        r.unmap(new Entry(2));
        r.task.run();
        if (!r.released.equals(List.of(1, 2))) {
            return "after one task pass released " + r.released
                    + "; entry 2 completed before the IWC clear and no interrupt will come for it";
        }
        return r.problem();
    }

    /**
     * The QI task may run at any moment: a drain after each step of the unmap path (fill,
     * link, IQT) releases nothing while the hardware has completed nothing. A fresh or
     * recycled element carries a stale (gen, seq) that already reads processed (M2L).
     */
    static String drainBetweenTheUnmapStepsReleasesNothingUnfinished(Variant v) {
        Rig r = rig(v, 0, 1);
        Runnable drain = () -> r.list.drain(r.s);
        for (int i = 1; i <= 2; i++) {
            r.unmap(new Entry(i), drain);
        }
        if (r.problem() != null) {
            return r.problem();
        }
        return r.released.isEmpty() ? null : "released " + r.released + " with nothing completed";
    }

    /**
     * The hardware completes each descriptor as IQT publishes it and the QI task runs on the
     * completion interrupt (IWC 0 -> 1): after three unmaps every entry has been released. An
     * entry linked after the tail advance misses the pass its interrupt started (M9).
     */
    static String interruptDrivenTaskReleasesEveryCompletedEntry(Variant v) {
        Rig r = rig(v, 0, 1);
        r.hw.autoComplete = true;
        r.hw.onInterrupt = r.task;
        for (int i = 1; i <= 3; i++) {
            r.unmap(new Entry(i));
        }
        if (!r.released.equals(List.of(1, 2, 3))) {
            return "every descriptor completed and its interrupt handled, released only " + r.released;
        }
        return r.problem();
    }
}
