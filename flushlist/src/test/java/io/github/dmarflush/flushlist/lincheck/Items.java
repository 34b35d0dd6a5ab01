package io.github.dmarflush.flushlist.lincheck;

import java.util.Arrays;

/**
 * The items one drain released, in order: a small value class, cheaper under Lincheck's
 * model checker than an {@code ArrayList} (every field access is an event there). Equal
 * when the sequences are equal; prints as {@code [3, 5]}.
 */
public final class Items {
    private int[] items = new int[4];
    private int n;

    void add(int item) {
        if (n == items.length) {
            items = Arrays.copyOf(items, 2 * n);
        }
        items[n++] = item;
    }

    int size() {
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Items other
                && Arrays.equals(items, 0, n, other.items, 0, other.n);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < n; i++) {
            h = 31 * h + items[i];
        }
        return h;
    }

    @Override
    public String toString() {
        return Arrays.toString(Arrays.copyOf(items, n));
    }
}
