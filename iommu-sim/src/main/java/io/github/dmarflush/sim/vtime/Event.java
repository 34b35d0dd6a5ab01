package io.github.dmarflush.sim.vtime;

/**
 * Something that happens at one instant of simulated time: an action and the time it fires.
 * An event may be scheduled, cancelled and scheduled again; it is in the loop's queue at most
 * once at a time.
 *
 * <p>Not thread-safe: events belong to one {@link EventLoop}, which runs on one host thread.
 */
public abstract class Event {

    long time;
    long order;
    /** Position in the loop's heap, or -1 when not queued. */
    int index = -1;

    /** Creates an event that is not scheduled. */
    protected Event() {
    }

    /** Does what happens at {@link #time()}. Called by the loop, with {@code loop.now() == time()}. */
    protected abstract void fire();

    /** @return the time it fires (or last fired), ns of simulated time */
    public final long time() {
        return time;
    }

    /** @return whether it is waiting in a loop's queue */
    public final boolean isScheduled() {
        return index >= 0;
    }

    /**
     * An event that runs {@code action}.
     *
     * @param action what happens
     * @return the event, not yet scheduled
     */
    public static Event of(Runnable action) {
        return new Event() {
            @Override
            protected void fire() {
                action.run();
            }
        };
    }
}
