package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.qi.QiTask;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A single-threaded task queue running one task, as FreeBSD's fast taskqueue
 * {@code "dmar%d qi taskq"} running {@code dmar_qi_task}: {@link #enqueue()} from the
 * interrupt handler marks the task pending and wakes the thread; enqueueing a task that is
 * already pending does nothing (the pending count is coalesced), but enqueueing while it
 * runs makes it run once more.
 *
 * <p>Thread-safe.
 */
public final class QiTaskQueue implements QiTaskRunner {

    private final Runnable task;
    private final Thread thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile boolean running = true;
    private volatile boolean idle;
    private volatile long runs;
    private final java.util.concurrent.atomic.LongAdder enqueues = new java.util.concurrent.atomic.LongAdder();
    private volatile Throwable failure;
    private final java.util.concurrent.atomic.AtomicLong requested = new java.util.concurrent.atomic.AtomicLong();
    private final Object drainMonitor = new Object();
    private long served; // guarded by drainMonitor: the request ticket the last completed run covered

    /**
     * Starts the task thread.
     *
     * @param name the thread's name
     * @param task the task
     */
    public QiTaskQueue(String name, Runnable task) {
        this.task = Objects.requireNonNull(task, "task");
        this.thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Marks the task pending and wakes the thread. Safe from any thread; does not block. */
    @Override
    public void enqueue() {
        enqueues.increment();
        if (!pending.getAndSet(true) && idle) {
            LockSupport.unpark(thread);
        }
    }

    private void loop() {
        while (running) {
            if (!pending.getAndSet(false)) {
                idle = true;
                if (running && !pending.get()) {
                    LockSupport.parkNanos(this, 1_000_000L);
                }
                idle = false;
                continue;
            }
            long ticket = requested.get(); // read before the task body starts
            try {
                task.run();
            } catch (Throwable t) {
                failure = t;
                running = false;
            }
            runs++;
            synchronized (drainMonitor) {
                served = ticket;
                drainMonitor.notifyAll();
            }
        }
    }

    /**
     * Enqueues the task and waits until a run that started after this call has completed.
     * As {@code taskqueue_enqueue} followed by {@code taskqueue_drain}.
     *
     * @throws IllegalStateException if the task failed
     */
    public void runAndWait() {
        long ticket = requested.incrementAndGet();
        enqueue();
        synchronized (drainMonitor) {
            while (served < ticket) {
                checkFailure();
                try {
                    drainMonitor.wait(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        checkFailure();
    }

    private void checkFailure() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("the QI task failed: " + t, t);
        }
    }

    @Override
    public long runs() {
        return runs;
    }

    @Override
    public long enqueues() {
        return enqueues.sum();
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    /** {@inheritDoc} From the task if it is the library's {@link QiTask}. */
    @Override
    public TaskCounters counters() {
        return task instanceof QiTask t
                ? new TaskCounters(t.releasedByFirstDrain(), t.releasedBySecondDrain(), t.iwcClears())
                : TaskCounters.NONE;
    }

    /** Stops the thread after the current run. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
