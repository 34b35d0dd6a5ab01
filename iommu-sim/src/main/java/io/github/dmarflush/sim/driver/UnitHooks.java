package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.SeqProcessed;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.function.UnaryOperator;

/**
 * Where a {@link DmarUnit} gets the library classes that decide everything about the flush
 * list and the QI protocol. {@link #LIBRARY} uses the shipped {@code flushlist} classes and is
 * what every workload runs; the seam exists so that a test (or the seeded-bugs matrix) can
 * build a unit around a deliberately broken variant and let the DMA checker find it, without
 * any broken code in the shipped jars.
 *
 * @param flushList builds the unit's TLB flush list
 * @param processed wraps the drain's stop condition (the sequencer's {@code processed})
 * @param task builds the QI task run on the completion interrupt
 */
public record UnitHooks(FlushListFactory flushList, UnaryOperator<SeqProcessed> processed, TaskFactory task) {

    /** Builds a TLB flush list. */
    @FunctionalInterface
    public interface FlushListFactory {
        /**
         * @param strategy the strategy the unit was asked for
         * @param dummy a free entry to be the first zombie (zombie-head lists)
         * @param reclaimer frees an entry's IOVA range and recycles the entry
         * @param unitLock the unit lock as the QI task's call site ({@code dmar_qi_task})
         * @return the list
         */
        TlbFlushList<IommuMapEntry> create(FlushStrategy strategy, IommuMapEntry dummy,
                Reclaimer<IommuMapEntry> reclaimer, Lock unitLock);
    }

    /** Builds the QI task. */
    @FunctionalInterface
    public interface TaskFactory {
        /**
         * @param flushList the unit's list
         * @param sequencer the unit's sequencer
         * @param ics the unit's ICS register access
         * @return the task body
         */
        Runnable create(TlbFlushList<IommuMapEntry> flushList, QiSequencer sequencer,
                InvalidationCompletionStatus ics);
    }

    /** The identity wrapper: the drain asks the sequencer itself. */
    public static final UnaryOperator<SeqProcessed> NO_WRAP = p -> p;

    /** The shipped library: {@code LockedFlushList} or {@code ZombieHeadFlushList}, and {@code QiTask}. */
    public static final UnitHooks LIBRARY = new UnitHooks(
            (strategy, dummy, reclaimer, lock) -> strategy == FlushStrategy.LOCKED
                    ? new LockedFlushList<>(lock, reclaimer)
                    : new ZombieHeadFlushList<>(dummy, reclaimer),
            NO_WRAP,
            QiTask::new);

    /**
     * @throws NullPointerException if a part is null
     */
    public UnitHooks {
        Objects.requireNonNull(flushList, "flushList");
        Objects.requireNonNull(processed, "processed");
        Objects.requireNonNull(task, "task");
    }
}
