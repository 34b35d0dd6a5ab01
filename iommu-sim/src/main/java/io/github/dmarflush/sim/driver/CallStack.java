package io.github.dmarflush.sim.driver;

import java.util.List;
import java.util.Objects;

/**
 * A kernel stack, innermost frame first, named after the FreeBSD functions the simulated
 * path stands for: the key of the per-call-site aggregation of invalidation requests, as a
 * DTrace {@code @[stack()] = count()} aggregation would print it. The simulator does not walk
 * Java stacks: each path carries its constant stack, so counting costs one map lookup.
 *
 * @param frames function names, innermost first; not empty
 */
public record CallStack(List<String> frames) {

    /**
     * @throws IllegalArgumentException if there is no frame
     */
    public CallStack {
        frames = List.copyOf(Objects.requireNonNull(frames, "frames"));
        if (frames.isEmpty()) {
            throw new IllegalArgumentException("a stack needs at least one frame");
        }
    }

    /**
     * @param frames function names, innermost first
     * @return the stack
     */
    public static CallStack of(String... frames) {
        return new CallStack(List.of(frames));
    }

    /**
     * @param outer frames to append below the innermost ones (the caller's frames)
     * @return this stack called from {@code outer}
     */
    public CallStack calledFrom(String... outer) {
        String[] all = new String[frames.size() + outer.length];
        for (int i = 0; i < frames.size(); i++) {
            all[i] = frames.get(i);
        }
        System.arraycopy(outer, 0, all, frames.size(), outer.length);
        return new CallStack(List.of(all));
    }

    @Override
    public String toString() {
        return String.join(" <- ", frames);
    }
}
