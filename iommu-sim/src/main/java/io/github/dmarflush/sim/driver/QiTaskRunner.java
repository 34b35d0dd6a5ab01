package io.github.dmarflush.sim.driver;

/**
 * What runs a unit's QI task when its completion interrupt arrives: FreeBSD's
 * {@code "dmar%d qi taskq"} thread. {@link QiTaskQueue} is a host thread (the real-thread
 * clock); {@code io.github.dmarflush.sim.virt.QiTaskThread} is a simulated kernel thread that
 * performs the same steps in virtual time.
 */
public interface QiTaskRunner extends AutoCloseable {

    /**
     * Marks the task pending and wakes its thread ({@code taskqueue_enqueue}, as
     * {@code dmar_qi_intr} does). Does not block.
     */
    void enqueue();

    /** @return completed passes of the task */
    long runs();

    /** @return calls to {@link #enqueue()} */
    long enqueues();

    /** @return the exception that stopped the task, or null */
    Throwable failure();

    /**
     * @return what the passes did so far: entries released by each drain and ICS.IWC clears
     *     (zero where the task is not the library's {@code QiTask} and does not count them)
     */
    TaskCounters counters();

    /** Stops the runner. */
    @Override
    void close();

    /**
     * What the QI task's passes did.
     *
     * @param releasedByFirstDrain entries released by the first drain of each pass
     * @param releasedBySecondDrain entries released by the drain after clearing ICS.IWC
     * @param iwcClears passes that found ICS.IWC set and cleared it
     */
    record TaskCounters(long releasedByFirstDrain, long releasedBySecondDrain, long iwcClears) {
        /** No counts. */
        public static final TaskCounters NONE = new TaskCounters(0, 0, 0);
    }
}
