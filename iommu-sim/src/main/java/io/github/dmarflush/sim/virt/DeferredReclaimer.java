package io.github.dmarflush.sim.virt;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.sim.driver.IommuMapEntry;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * The flush list's reclamation callbacks, recorded in the order the drain makes them so that
 * the QI task thread can perform them as its own steps: freeing an entry's IOVA space needs
 * {@code iodom}, which a simulated thread acquires in simulated time, after the drain call has
 * returned. An element is retired (recycled) only after every release recorded before it,
 * so the locked list's entry is not reused before its space is freed.
 *
 * <p>Not thread-safe: one simulated task thread uses it.
 */
final class DeferredReclaimer implements Reclaimer<IommuMapEntry> {

    private record Callback(boolean release, IommuMapEntry entry) {
    }

    private final Reclaimer<IommuMapEntry> direct;
    private final ArrayDeque<Callback> pending = new ArrayDeque<>();

    DeferredReclaimer(Reclaimer<IommuMapEntry> direct) {
        this.direct = Objects.requireNonNull(direct, "direct");
    }

    @Override
    public void releaseItem(IommuMapEntry entry) {
        pending.add(new Callback(true, entry));
    }

    @Override
    public void retireElement(IommuMapEntry element) {
        pending.add(new Callback(false, element));
    }

    /**
     * Retires every element recorded before the next release, and takes that release.
     *
     * @return the entry whose space is to be freed next, or null if none is pending
     */
    IommuMapEntry retireUpToNextRelease() {
        while (!pending.isEmpty()) {
            Callback c = pending.poll();
            if (c.release()) {
                return c.entry();
            }
            direct.retireElement(c.entry());
        }
        return null;
    }

    /**
     * Frees an entry's IOVA space (the caller holds its domain's {@code iodom} in simulated
     * time).
     *
     * @param entry the entry {@link #retireUpToNextRelease} returned
     */
    void release(IommuMapEntry entry) {
        direct.releaseItem(entry);
    }

    /** @return whether callbacks are waiting */
    boolean isEmpty() {
        return pending.isEmpty();
    }
}
