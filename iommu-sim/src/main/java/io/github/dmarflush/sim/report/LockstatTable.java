package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.workload.LockSiteSample;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Formats contention events in the layout of lockstat(1)'s default report, so a table
 * printed here can be read beside one from a FreeBSD machine:
 *
 * <pre>
 * Adaptive mutex spin: 7742136 events in 30.074 seconds (257438 events/sec)
 *
 * Count indv cuml rcnt     nsec Lock                   Caller
 * -------------------------------------------------------------------------------
 * 5915452  76%  76% 1.00     1070 dmarhw                 dmar_qi_task
 * ...
 * -------------------------------------------------------------------------------
 * </pre>
 *
 * Columns: events at this lock and caller; their share of the table; the cumulative share;
 * the reference count (1.00: one record per lock and caller, nothing coalesced); the mean
 * time per event in ns (spinning or blocked); the lock's name; the call site. Rows are
 * sorted by count, largest first; rows with no events are left out.
 */
public final class LockstatTable {

    private static final String RULE = "-".repeat(79);

    private LockstatTable() {
    }

    /** The kind of event a table lists. */
    public enum Kind {
        /** Acquisitions that spun. */
        SPIN("Adaptive mutex spin", LockSiteSample::spinEvents, LockSiteSample::spinNanos),
        /** Acquisitions that blocked. */
        BLOCK("Adaptive mutex block", LockSiteSample::blockEvents, LockSiteSample::blockNanos);

        final String title;
        final ToLongFunction<LockSiteSample> events;
        final ToLongFunction<LockSiteSample> nanos;

        Kind(String title, ToLongFunction<LockSiteSample> events, ToLongFunction<LockSiteSample> nanos) {
            this.title = title;
            this.events = events;
            this.nanos = nanos;
        }
    }

    /**
     * @param kind spin or block
     * @param samples every (lock, caller) of the window
     * @param seconds the window's length
     * @return the table, lines ending in {@code \n}
     */
    public static String format(Kind kind, List<LockSiteSample> samples, double seconds) {
        List<LockSiteSample> rows = samples.stream()
                .filter(s -> kind.events.applyAsLong(s) > 0)
                .sorted(Comparator.comparingLong(kind.events).reversed()
                        .thenComparing(LockSiteSample::lock).thenComparing(LockSiteSample::caller))
                .toList();
        long total = rows.stream().mapToLong(kind.events).sum();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: %d events in %.3f seconds (%.0f events/sec)%n%n",
                kind.title, total, seconds, total / seconds));
        int countWidth = Math.max(5, Long.toString(rows.isEmpty() ? 0 : kind.events.applyAsLong(rows.get(0))).length());
        sb.append(String.format(Locale.ROOT, "%" + countWidth + "s indv cuml rcnt     nsec %-22s %s%n",
                "Count", "Lock", "Caller"));
        sb.append(RULE).append('\n');
        long cumulative = 0;
        for (LockSiteSample s : rows) {
            long n = kind.events.applyAsLong(s);
            cumulative += n;
            long meanNanos = n == 0 ? 0 : kind.nanos.applyAsLong(s) / n;
            sb.append(String.format(Locale.ROOT, "%" + countWidth + "d %3d%% %3d%% %4.2f %8d %-22s %s%n",
                    n, Math.round(100.0 * n / total), Math.round(100.0 * cumulative / total), 1.0, meanNanos,
                    s.lock(), s.caller()));
        }
        sb.append(RULE).append('\n');
        return sb.toString();
    }
}
