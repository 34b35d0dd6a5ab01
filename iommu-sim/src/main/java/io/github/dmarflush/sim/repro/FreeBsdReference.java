package io.github.dmarflush.sim.repro;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * FreeBSD's published lockstat measurements of the DMAR locks (states A, B and C of the 2022
 * changes), as the data the virtual-time model is calibrated on (B) and checked against (A's
 * extra sections, C), read from the resource {@code freebsd-lockstat.tsv}.
 *
 * <p>Immutable and thread-safe.
 */
public final class FreeBsdReference {

    /**
     * One row of a lockstat table.
     *
     * @param spin spin (true) or block (false) table
     * @param lock the lock's name
     * @param caller FreeBSD's caller, function+offset
     * @param count events in the run
     * @param nsec mean ns per event
     * @param modelSite the model's call site standing for it, or null if the model has none
     */
    public record Row(boolean spin, String lock, String caller, long count, long nsec, String modelSite) {
    }

    /**
     * One measured state.
     *
     * @param id {@code A}, {@code B} or {@code C}
     * @param seconds lockstat's run time
     * @param mbitPerSecond netperf's throughput under lockstat
     * @param description what the state is
     * @param rows the published rows (C has none)
     * @param spinTotal events in the spin table's title line
     * @param blockTotal events in the block table's title line
     */
    public record State(String id, double seconds, double mbitPerSecond, String description, List<Row> rows,
            long spinTotal, long blockTotal) {

        /** @return spin events per second, all rows */
        public double spinPerSecond() {
            return spinTotal / seconds;
        }

        /** @return block events per second, all rows */
        public double blockPerSecond() {
            return blockTotal / seconds;
        }

        /**
         * @param r a row of this state
         * @return its events per second
         */
        public double perSecond(Row r) {
            return r.count() / seconds;
        }
    }

    private final Map<String, State> states;

    private FreeBsdReference(Map<String, State> states) {
        this.states = states;
    }

    /**
     * @return the reference data shipped in the jar
     * @throws IllegalStateException if the resource is missing or malformed (a build defect)
     */
    public static FreeBsdReference load() {
        try (InputStream in = FreeBsdReference.class.getResourceAsStream("freebsd-lockstat.tsv")) {
            if (in == null) {
                throw new IllegalStateException("freebsd-lockstat.tsv is missing from the jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read freebsd-lockstat.tsv: " + e, e);
        }
    }

    static FreeBsdReference parse(String text) {
        Map<String, String[]> heads = new LinkedHashMap<>();
        Map<String, List<Row>> rows = new LinkedHashMap<>();
        Map<String, long[]> totals = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            String where = "freebsd-lockstat.tsv:" + (i + 1);
            try {
                switch (f[0]) {
                    case "state" -> {
                        heads.put(f[1], f);
                        rows.put(f[1], new ArrayList<>());
                        totals.put(f[1], new long[2]);
                    }
                    case "row" -> rows.get(f[1]).add(new Row(f[2].equals("spin"), f[3], f[4], Long.parseLong(f[5]),
                            Long.parseLong(f[6]), f[7].equals("-") ? null : f[7]));
                    case "total" -> totals.get(f[1])[f[2].equals("spin") ? 0 : 1] = Long.parseLong(f[3]);
                    default -> throw new IllegalStateException(where + ": unknown record " + f[0]);
                }
            } catch (RuntimeException e) {
                throw new IllegalStateException(where + ": malformed: " + line, e);
            }
        }
        Map<String, State> states = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> h : heads.entrySet()) {
            String[] f = h.getValue();
            long[] t = totals.get(h.getKey());
            states.put(h.getKey(), new State(f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3]), f[4],
                    List.copyOf(rows.get(h.getKey())), t[0], t[1]));
        }
        return new FreeBsdReference(states);
    }

    /**
     * @param id {@code A}, {@code B} or {@code C}
     * @return that state
     * @throws IllegalArgumentException if there is none
     */
    public State state(String id) {
        State s = states.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no state " + id + " in the reference data");
        }
        return s;
    }
}
