package io.github.dmarflush.sim.workload;

import java.util.Objects;

/**
 * Which clock a run's figures come from, for its report.
 *
 * @param virtual whether the run was in virtual time (deterministic) rather than on host threads
 * @param cpus simulated CPUs (virtual time), or the host's CPUs
 * @param streams receive streams, one per NIC queue (virtual time), or 0
 * @param costs the cost file (virtual time), or empty
 */
public record ClockInfo(boolean virtual, int cpus, int streams, String costs) {

    /** @throws NullPointerException if {@code costs} is null */
    public ClockInfo {
        Objects.requireNonNull(costs, "costs");
    }

    /** @return host threads on this machine's CPUs */
    public static ClockInfo host() {
        return new ClockInfo(false, Runtime.getRuntime().availableProcessors(), 0, "");
    }

    /** @return one line for a report */
    public String describe() {
        return virtual
                ? String.format("virtual time: %d simulated CPU(s), %d stream(s), cost model %s", cpus, streams, costs)
                : "real threads on the host (" + cpus + " CPUs)";
    }
}
