package io.github.dmarflush.sim.kern;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An address threads sleep on and are woken from, as the {@code wchan} of FreeBSD's
 * {@code msleep}/{@code wakeup}. {@link Kernel#wakeup} makes every sleeper runnable.
 */
public final class WaitChannel {

    private final String name;
    final List<KThread> sleepers = new ArrayList<>();

    /** @param name a name for diagnostics */
    public WaitChannel(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** @return whether a thread sleeps here */
    public boolean hasSleepers() {
        return !sleepers.isEmpty();
    }

    @Override
    public String toString() {
        return name;
    }
}
