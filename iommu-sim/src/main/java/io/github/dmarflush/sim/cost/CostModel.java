package io.github.dmarflush.sim.cost;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The virtual-time model's numbers, one per {@link Cost}, each with the source it comes from.
 * Loaded from a cost file: one line per number,
 *
 * <pre>
 * rx.stack_ns = 2400  source: fit to state B (docs/cost-model.md)
 * </pre>
 *
 * with {@code #} comments and blank lines. Every {@link Cost} must appear exactly once, with a
 * whole number within the cost's range ({@link Cost#min()}..{@link Cost#max()}) and a
 * non-empty source; anything else is an error that names the file and the line. The built-in file is {@value #BUILT_IN}.
 *
 * <p>Immutable and thread-safe.
 */
public final class CostModel {

    /** The cost file shipped in the jar. */
    public static final String BUILT_IN = "freebsd-ix-10gbe.costs";

    private static final Pattern LINE = Pattern.compile("([A-Za-z0-9_.]+)\\s*=\\s*(\\S+)(?:\\s+source:\\s*(.*))?");

    private final String name;
    private final Map<Cost, Long> values;
    private final Map<Cost, String> sources;

    private CostModel(String name, Map<Cost, Long> values, Map<Cost, String> sources) {
        this.name = name;
        this.values = values;
        this.sources = sources;
    }

    /**
     * @return the model of the built-in cost file
     * @throws IllegalStateException if the built-in file is missing or malformed (a build defect)
     */
    public static CostModel builtIn() {
        try (InputStream in = CostModel.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("built-in cost file " + BUILT_IN + " is missing from the jar");
            }
            return parse(BUILT_IN, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read built-in cost file " + BUILT_IN + ": " + e, e);
        } catch (CostFileException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Loads a cost file.
     *
     * @param file the file
     * @return its model
     * @throws CostFileException if it cannot be read or is malformed; the message names the
     *     file and, for a malformed line, the line
     */
    public static CostModel load(Path file) throws CostFileException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new CostFileException(file + ": no such file");
        } catch (IOException e) {
            throw new CostFileException(file + ": cannot read: " + e.getMessage());
        }
        return parse(file.toString(), text);
    }

    /**
     * Parses cost file text.
     *
     * @param name the file's name, for messages
     * @param text its contents
     * @return the model
     * @throws CostFileException if it is malformed
     */
    public static CostModel parse(String name, String text) throws CostFileException {
        Map<Cost, Long> values = new EnumMap<>(Cost.class);
        Map<Cost, String> sources = new EnumMap<>(Cost.class);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1); // a byte-order mark some editors write
        }
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            int n = i + 1;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new CostFileException(name + ":" + n + ": expected 'key = value  source: ...', got: " + line);
            }
            Cost c = Cost.byKey(m.group(1));
            if (c == null) {
                throw new CostFileException(name + ":" + n + ": unknown cost '" + m.group(1) + "'");
            }
            if (values.containsKey(c)) {
                throw new CostFileException(name + ":" + n + ": '" + c.key() + "' given twice");
            }
            long v;
            try {
                v = Long.parseLong(m.group(2));
            } catch (NumberFormatException e) {
                throw new CostFileException(name + ":" + n + ": '" + c.key() + "' must be a whole number of "
                        + c.unit() + ", got '" + m.group(2) + "'");
            }
            if (v < c.min() || v > c.max()) {
                throw new CostFileException(name + ":" + n + ": '" + c.key() + "' must be " + c.min() + ".." + c.max()
                        + " " + c.unit() + ", got " + v);
            }
            String source = m.group(3) == null ? "" : m.group(3).strip();
            if (source.isEmpty()) {
                throw new CostFileException(name + ":" + n + ": '" + c.key()
                        + "' has no source; write where the number comes from after 'source:'");
            }
            values.put(c, v);
            sources.put(c, source);
        }
        List<String> missing = new ArrayList<>();
        for (Cost c : Cost.values()) {
            if (!values.containsKey(c)) {
                missing.add("'" + c.key() + "'");
            }
        }
        if (!missing.isEmpty()) {
            throw new CostFileException(name + ": " + String.join(", ", missing)
                    + (missing.size() == 1 ? " is" : " are") + " missing");
        }
        return new CostModel(name, values, sources);
    }

    /** @return the file it was loaded from */
    public String name() {
        return name;
    }

    /**
     * @param c a cost
     * @return its value, in {@link Cost#unit()}
     */
    public long get(Cost c) {
        return values.get(c);
    }

    /**
     * @param c a cost
     * @return where its value comes from
     */
    public String source(Cost c) {
        return sources.get(c);
    }

    /**
     * @param c a cost
     * @param value another value
     * @param source its source
     * @return this model with {@code c} replaced
     * @throws IllegalArgumentException if {@code value} is outside the cost's range
     */
    public CostModel with(Cost c, long value, String source) {
        if (value < c.min() || value > c.max()) {
            throw new IllegalArgumentException("'" + c.key() + "' must be " + c.min() + ".." + c.max() + " " + c.unit()
                    + ", got " + value);
        }
        Map<Cost, Long> v = new EnumMap<>(values);
        Map<Cost, String> s = new EnumMap<>(sources);
        v.put(c, value);
        s.put(c, Objects.requireNonNull(source, "source"));
        return new CostModel(name, v, s);
    }

    /** @return the model as cost file text, one line per cost, in {@link Cost} order */
    public String format() {
        StringBuilder sb = new StringBuilder();
        for (Cost c : Cost.values()) {
            sb.append(String.format("%-26s = %-8d source: %s%n", c.key(), values.get(c), sources.get(c)));
        }
        return sb.toString();
    }

    /** A cost file that cannot be read or is malformed. */
    public static final class CostFileException extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message names the file and, for a malformed line, the line */
        public CostFileException(String message) {
            super(message);
        }
    }
}
