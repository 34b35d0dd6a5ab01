package io.github.dmarflush.seeded;

import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushListM1;
import io.github.dmarflush.flushlist.ZombieHeadFlushListM2P;
import io.github.dmarflush.flushlist.ZombieHeadFlushListM3;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.seeded.variants.QiSequencerFreeBsdWrap;
import io.github.dmarflush.seeded.variants.QiSequencerM4;
import io.github.dmarflush.seeded.variants.QiSequencerM5;
import io.github.dmarflush.seeded.variants.QiSequencerM6;
import io.github.dmarflush.seeded.variants.QiSequencerM7;
import io.github.dmarflush.seeded.variants.QiTaskM8;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The seeded bugs: the correct implementation and the deliberately broken variants of the
 * flush list and the (gen, seq) protocol, one classic mistake each, selected by name
 * ({@link #byName}, or {@code -D}{@value #PROPERTY}{@code =M5} through {@link #selected}).
 *
 * <p>Each variant is the library with one change. Where the change is in a library class, the
 * broken class is a copy of it in this module ({@code ZombieHeadFlushListM1},
 * {@code QiSequencerM4}, {@code QiTaskM8}, ...; the change is marked {@code SEEDED BUG}, so
 * that {@code diff} against the library's file reads as the bug). Where it is in the caller
 * (the unmap path, M2L and M9), the orders are in {@link #unmap}. The factories below build
 * the objects a harness needs for the variant: the library's where the variant does not touch
 * them. Nothing here is in the shipped {@code flushlist} jar.
 */
public enum Variant {

    /** The library as shipped. */
    CORRECT(Part.NONE, "the library as shipped"),
    /** {@code ZombieHeadFlushListM1}. */
    M1(Part.LIST, "the drain retires the new zombie (maybe the tail) instead of the old zombie"),
    /** {@link #unmap}: link, fill, advance. */
    M2L(Part.CALLER, "the unmap path links the entry before writing its wait sequence and range"),
    /** {@code ZombieHeadFlushListM2P}. */
    M2P(Part.LIST, "enqueue links the entry with a plain store instead of a release store"),
    /** {@code ZombieHeadFlushListM3}. */
    M3(Part.LIST, "the drain releases the entry one past the status word (off by one)"),
    /** {@code QiSequencerM4}. */
    M4(Part.SEQUENCER, "processed() compares gen and seq signed"),
    /** {@code QiSequencerM5}. */
    M5(Part.SEQUENCER, "the wrap bumps gen without first waiting for seq 0xFFFFFFFF"),
    /** {@code QiSequencerM6}. */
    M6(Part.SEQUENCER, "the synchronous waiter registers after advancing IQT (plain inv_seq_waiters)"),
    /** {@code QiSequencerM7} over an {@link MsleepLock}. */
    M7(Part.SEQUENCER, "the QI task wakes the waiters without the unit lock (msleep/wakeup)"),
    /** {@code QiTaskM8}. */
    M8(Part.TASK, "the QI task does not drain again after clearing ICS.IWC"),
    /** {@link #unmap}: fill, advance, link. */
    M9(Part.CALLER, "the unmap path advances IQT past the wait descriptor before linking the entry"),
    /** {@code QiSequencerFreeBsdWrap}: README, "A finding". */
    FREEBSD_WRAP(Part.SEQUENCER, "the wrap leaves seqHw at 0xFFFFFFFF when it bumps gen (FreeBSD's code)");

    /** The system property {@link #selected} reads. */
    public static final String PROPERTY = "dmarflush.variant";

    /** Which part of the system a variant changes. */
    public enum Part {
        /** Nothing. */
        NONE,
        /** The zombie-head flush list. */
        LIST,
        /** The (gen, seq) sequencer and its waiters. */
        SEQUENCER,
        /** The QI task. */
        TASK,
        /** The caller of the library: the unmap path. */
        CALLER
    }

    private final Part part;
    private final String description;

    Variant(Part part, String description) {
        this.part = part;
        this.description = description;
    }

    /** @return the part this variant changes */
    public Part part() {
        return part;
    }

    /** @return one line saying what is broken */
    public String description() {
        return description;
    }

    /**
     * The variant this JVM runs: {@code -Ddmarflush.variant=NAME}, default {@link #CORRECT}.
     *
     * @return the selected variant
     * @throws IllegalArgumentException if the property names no variant (so that a typo
     *     cannot pass as a clean run)
     */
    public static Variant selected() {
        return byName(System.getProperty(PROPERTY, CORRECT.name()));
    }

    /**
     * @param name a constant's name, any case ({@code m5}, {@code freebsd_wrap}); {@code NONE}
     *     is {@link #CORRECT}
     * @return the variant
     * @throws IllegalArgumentException if no variant has that name
     */
    public static Variant byName(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT);
        if (n.equals("NONE")) {
            return CORRECT;
        }
        try {
            return valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown variant " + name + ": not one of "
                    + Arrays.toString(values()) + " (as -D" + PROPERTY + ", --rows or --diff)", e);
        }
    }

    /**
     * The zombie-head flush list: the library's, or the variant's copy (M1, M2P, M3).
     *
     * @param <E> the entry type
     * @param dummy the first zombie
     * @param reclaimer the callbacks
     * @return the list
     */
    public <E extends FlushEntry> TlbFlushList<E> zombieHeadList(E dummy, Reclaimer<? super E> reclaimer) {
        return switch (this) {
            case M1 -> new ZombieHeadFlushListM1<>(dummy, reclaimer);
            case M2P -> new ZombieHeadFlushListM2P<>(dummy, reclaimer);
            case M3 -> new ZombieHeadFlushListM3<>(dummy, reclaimer);
            default -> new ZombieHeadFlushList<>(dummy, reclaimer);
        };
    }

    /**
     * The sequencer: the library's {@code QiSequencer} or the variant's copy (M4, M5, M6, M7,
     * FREEBSD_WRAP), as {@code QiSequencer.builder(unitLock, queue).startAt(gen, seq)
     * .sleepTimeout(sleepTimeoutNanos, NANOSECONDS).build()}. M7's copy is built over an
     * {@link MsleepLock} around {@code unitLock} (unless it is one already).
     *
     * @param unitLock the unit lock
     * @param queue the invalidation queue
     * @param gen the first generation
     * @param seq the first sequence number, not 0
     * @param sleepTimeoutNanos the waiter's sleep timeout, 0 for none
     * @return the sequencer
     */
    public WaitSequencer sequencer(Lock unitLock, InvalidationQueue queue, int gen, int seq, long sleepTimeoutNanos) {
        TimeUnit ns = TimeUnit.NANOSECONDS;
        return switch (this) {
            case M4 -> QiSequencerM4.builder(unitLock, queue).startAt(gen, seq).sleepTimeout(sleepTimeoutNanos, ns).build();
            case M5 -> QiSequencerM5.builder(unitLock, queue).startAt(gen, seq).sleepTimeout(sleepTimeoutNanos, ns).build();
            case M6 -> QiSequencerM6.builder(unitLock, queue).startAt(gen, seq).sleepTimeout(sleepTimeoutNanos, ns).build();
            case M7 -> QiSequencerM7.builder(unitLock instanceof MsleepLock ? unitLock : new MsleepLock(unitLock), queue)
                    .startAt(gen, seq).sleepTimeout(sleepTimeoutNanos, ns).build();
            case FREEBSD_WRAP -> QiSequencerFreeBsdWrap.builder(unitLock, queue).startAt(gen, seq)
                    .sleepTimeout(sleepTimeoutNanos, ns).build();
            default -> library(unitLock, queue, gen, seq, sleepTimeoutNanos);
        };
    }

    /**
     * The library's sequencer, whatever the variant: for controls.
     *
     * @param unitLock the unit lock (an {@link MsleepLock} for M7's control)
     * @param queue the invalidation queue
     * @param gen the first generation
     * @param seq the first sequence number, not 0
     * @param sleepTimeoutNanos the waiter's sleep timeout, 0 for none
     * @return the library's {@code QiSequencer}, adapted
     */
    public static LibrarySequencer library(Lock unitLock, InvalidationQueue queue, int gen, int seq,
            long sleepTimeoutNanos) {
        return new LibrarySequencer(QiSequencer.builder(unitLock, queue).startAt(gen, seq)
                .sleepTimeout(sleepTimeoutNanos, TimeUnit.NANOSECONDS).build());
    }

    /**
     * The QI task: the library's {@code QiTask} over the library's sequencer, {@code QiTaskM8}
     * for M8, and {@link SequencerTask} (the same pass) over a copy of the sequencer.
     *
     * @param list the flush list
     * @param sequencer the sequencer this variant built
     * @param ics the completion status register
     * @return one pass of {@code dmar_qi_task}
     */
    public Runnable qiTask(TlbFlushList<?> list, WaitSequencer sequencer, InvalidationCompletionStatus ics) {
        if (sequencer instanceof LibrarySequencer lib) {
            return this == M8 ? new QiTaskM8(list, lib.qi(), ics) : new QiTask(list, lib.qi(), ics);
        }
        return new SequencerTask(list, sequencer, ics);
    }

    /**
     * The last steps of the unmap path, {@code iommu_qi_invalidate_locked}, in this variant's
     * order; the caller holds the unit lock. Correct: fill the entry, link it, advance IQT, so
     * that the consumer never sees a half-filled entry and the QI task that the wait
     * descriptor's interrupt schedules always finds the entry on the list.
     *
     * @param s the harness's steps
     */
    public void unmap(UnmapSteps s) {
        switch (this) {
            case M2L -> {
                s.link(); // SEEDED BUG M2L: linked before its wait sequence and range are written
                s.fill();
                s.advanceTail();
            }
            case M9 -> {
                s.fill();
                s.advanceTail(); // SEEDED BUG M9: the task may run before the entry is on the list
                s.link();
            }
            default -> {
                s.fill();
                s.link();
                s.advanceTail();
            }
        }
    }
}
