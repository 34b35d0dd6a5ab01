package io.github.dmarflush.sim.workload;

/** Told about a run's progress, about once a second, from the thread running it. */
@FunctionalInterface
public interface ProgressListener {

    /** Ignores progress. */
    ProgressListener NONE = (phase, elapsedSeconds, totalSeconds, packets) -> { };

    /**
     * @param phase {@code warmup} or {@code measure}
     * @param elapsedSeconds seconds into the phase
     * @param totalSeconds the phase's length, seconds
     * @param packets packets so far in the phase
     */
    void progress(String phase, double elapsedSeconds, double totalSeconds, long packets);
}
