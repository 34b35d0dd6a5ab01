package io.github.dmarflush.sim.vtime;

import java.util.Arrays;
import java.util.Objects;

/**
 * The clock and event list of a discrete-event simulation in integer nanoseconds of simulated
 * time. Events fire in time order; events at the same instant fire in the order they were
 * scheduled, so a run is a pure function of its inputs: the same schedule fires the same
 * events in the same order on every host.
 *
 * <p>Why not a library: SSJ ({@code ca.umontreal.iro.simul:ssj}) was weighed and left out.
 * Its event list is what this class does in a hundred lines, it keeps time in {@code double},
 * its default simulator is a static singleton, its process-oriented mode runs each process on
 * a host thread, and it brings 6.3 MB of dependencies (colt, a pre-JSR-166 concurrency
 * package, jfreechart). The simulator's random streams are {@link java.util.SplittableRandom}s
 * seeded from the run's seed, which gives the same determinism.
 *
 * <p>The queue is a binary heap that records each event's position, so cancelling or
 * rescheduling an event is O(log n) without leaving dead entries behind.
 *
 * <p>Not thread-safe: one host thread schedules and runs everything.
 */
public final class EventLoop {

    private Event[] heap = new Event[64];
    private int size;
    private long now;
    private long nextOrder;
    private long fired;

    /** Creates a loop at time 0 with no events. */
    public EventLoop() {
    }

    /** @return the current simulated time, ns */
    public long now() {
        return now;
    }

    /** @return events fired so far */
    public long eventsFired() {
        return fired;
    }

    /** @return events waiting */
    public int pending() {
        return size;
    }

    /**
     * Schedules {@code e} at {@code time}, or moves it there if it is already scheduled. It
     * fires after every event already scheduled for the same instant.
     *
     * @param e the event
     * @param time when it fires, ns, not before {@link #now()}
     * @throws IllegalArgumentException if {@code time} is in the past
     */
    public void schedule(Event e, long time) {
        Objects.requireNonNull(e, "event");
        if (time < now) {
            throw new IllegalArgumentException("event scheduled at " + time + " ns, before now (" + now + " ns)");
        }
        if (e.index >= 0) {
            remove(e);
        }
        e.time = time;
        e.order = nextOrder++;
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        e.index = size;
        heap[size++] = e;
        siftUp(e.index);
    }

    /**
     * Schedules {@code e} {@code delay} ns from now.
     *
     * @param e the event
     * @param delay ns, 0 or more
     */
    public void scheduleIn(Event e, long delay) {
        if (delay < 0) {
            throw new IllegalArgumentException("negative delay " + delay + " ns");
        }
        schedule(e, Math.addExact(now, delay));
    }

    /**
     * Schedules a new event that runs {@code action} {@code delay} ns from now.
     *
     * @param delay ns, 0 or more
     * @param action what happens
     * @return the event, for cancelling
     */
    public Event after(long delay, Runnable action) {
        Event e = Event.of(action);
        scheduleIn(e, delay);
        return e;
    }

    /**
     * Takes {@code e} out of the queue if it is there.
     *
     * @param e the event
     * @return whether it was scheduled
     */
    public boolean cancel(Event e) {
        if (e.index < 0) {
            return false;
        }
        remove(e);
        return true;
    }

    /**
     * Fires every event due at or before {@code time}, in order, then sets the clock to
     * {@code time}. Events that those events schedule at or before {@code time} fire too.
     *
     * @param time the end, ns, not before {@link #now()}
     */
    public void runUntil(long time) {
        if (time < now) {
            throw new IllegalArgumentException("cannot run back to " + time + " ns from " + now + " ns");
        }
        while (size > 0 && heap[0].time <= time) {
            fireFirst();
        }
        now = time;
    }

    /**
     * Fires events until none is left or the next is after {@code limit}; the clock stays at
     * the last event fired.
     *
     * @param limit the latest time to fire an event at, ns
     * @return true if no event is left
     */
    public boolean runUntilIdle(long limit) {
        while (size > 0 && heap[0].time <= limit) {
            fireFirst();
        }
        return size == 0;
    }

    private void fireFirst() {
        Event e = heap[0];
        remove(e);
        now = e.time;
        fired++;
        e.fire();
    }

    private void remove(Event e) {
        int i = e.index;
        Event last = heap[--size];
        heap[size] = null;
        e.index = -1;
        if (i != size) {
            heap[i] = last;
            last.index = i;
            siftDown(i);
            if (heap[i] == last) {
                siftUp(i);
            }
        }
    }

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.order < b.order);
    }

    private void siftUp(int i) {
        Event e = heap[i];
        while (i > 0) {
            int p = (i - 1) >>> 1;
            Event parent = heap[p];
            if (!before(e, parent)) {
                break;
            }
            heap[i] = parent;
            parent.index = i;
            i = p;
        }
        heap[i] = e;
        e.index = i;
    }

    private void siftDown(int i) {
        Event e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            Event child = heap[c];
            int r = c + 1;
            if (r < size && before(heap[r], child)) {
                c = r;
                child = heap[r];
            }
            if (!before(child, e)) {
                break;
            }
            heap[i] = child;
            child.index = i;
            i = c;
        }
        heap[i] = e;
        e.index = i;
    }
}
