package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.driver.InvalidationStacks;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Formats the per-call-site count of invalidation requests the way DTrace prints a
 * {@code @[stack()] = count()} aggregation: each stack's frames, innermost first, indented,
 * then its count; stacks in ascending order of count, so the largest is last. Frames are
 * prefixed with {@code kernel`} as DTrace names kernel functions.
 */
public final class StackReport {

    private StackReport() {
    }

    /**
     * @param rows the aggregation
     * @param seconds the window's length, for the rate in the title
     * @return the text, lines ending in {@code \n}
     */
    public static String format(List<InvalidationStacks.Row> rows, double seconds) {
        long total = rows.stream().mapToLong(InvalidationStacks.Row::count).sum();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "Invalidation requests by stack: %d in %.3f seconds (%.0f/sec)%n"
                        + "  (as dtrace -n 'fbt::iommu_qi_invalidate_*:entry { @[stack()] = count(); }')%n",
                total, seconds, total / seconds));
        rows.stream().sorted(Comparator.comparingLong(InvalidationStacks.Row::count)).forEach(r -> {
            sb.append('\n');
            for (String f : r.stack().frames()) {
                sb.append("              kernel`").append(f).append('\n');
            }
            sb.append(String.format(Locale.ROOT, "%17d%n", r.count()));
        });
        return sb.toString();
    }
}
