package io.github.dmarflush.sim.report;

import java.util.Locale;

/**
 * A minimal streaming JSON writer for the simulator's flat reports: objects, arrays, strings
 * (escaped as RFC 8259 requires), numbers (non-finite doubles become {@code null}) and
 * booleans. It tracks commas; the caller balances begin/end. Not thread-safe.
 */
public final class Json {

    private final StringBuilder sb = new StringBuilder();
    /** Whether the current container already holds a value (so the next needs a comma). */
    private long[] hasValue = new long[8];
    private int depth;
    private boolean afterName;

    private void beforeValue() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (depth > 0) {
            int w = (depth - 1) >> 6;
            long bit = 1L << ((depth - 1) & 63);
            if ((hasValue[w] & bit) != 0) {
                sb.append(',');
            }
            hasValue[w] |= bit;
        }
    }

    private void push(char c) {
        beforeValue();
        sb.append(c);
        depth++;
        if ((depth - 1) >> 6 >= hasValue.length) {
            hasValue = java.util.Arrays.copyOf(hasValue, hasValue.length * 2);
        }
        hasValue[(depth - 1) >> 6] &= ~(1L << ((depth - 1) & 63));
    }

    /** @return this, after {@code {} */
    public Json beginObject() {
        push('{');
        return this;
    }

    /** @return this, after {@code }} */
    public Json endObject() {
        depth--;
        sb.append('}');
        return this;
    }

    /** @return this, after {@code [} */
    public Json beginArray() {
        push('[');
        return this;
    }

    /** @return this, after {@code ]} */
    public Json endArray() {
        depth--;
        sb.append(']');
        return this;
    }

    /**
     * @param name a member name
     * @return this, ready for the member's value
     */
    public Json name(String name) {
        beforeValue();
        quote(name);
        sb.append(':');
        afterName = true;
        return this;
    }

    /**
     * @param s a string, or null
     * @return this
     */
    public Json value(String s) {
        beforeValue();
        if (s == null) {
            sb.append("null");
        } else {
            quote(s);
        }
        return this;
    }

    /**
     * @param v a number
     * @return this
     */
    public Json value(long v) {
        beforeValue();
        sb.append(v);
        return this;
    }

    /**
     * @param v a number; NaN and infinities are written as {@code null}
     * @return this
     */
    public Json value(double v) {
        beforeValue();
        if (Double.isFinite(v)) {
            if (v == Math.rint(v) && Math.abs(v) < 1e15) {
                sb.append((long) v);
            } else {
                sb.append(Double.toString(v)); // finite: a valid JSON number (e.g. 1.5E-4)
            }
        } else {
            sb.append("null");
        }
        return this;
    }

    /**
     * @param v a boolean
     * @return this
     */
    public Json value(boolean v) {
        beforeValue();
        sb.append(v);
        return this;
    }

    /**
     * @param name member name
     * @param v value
     * @return this
     */
    public Json field(String name, String v) {
        return name(name).value(v);
    }

    /**
     * @param name member name
     * @param v value
     * @return this
     */
    public Json field(String name, long v) {
        return name(name).value(v);
    }

    /**
     * @param name member name
     * @param v value
     * @return this
     */
    public Json field(String name, double v) {
        return name(name).value(v);
    }

    /**
     * @param name member name
     * @param v value
     * @return this
     */
    public Json field(String name, boolean v) {
        return name(name).value(v);
    }

    private void quote(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
