package io.github.dmarflush.flushlist.lincheck;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.dmarflush.flushlist.lincheck.FlushListModel.Impl;
import io.github.dmarflush.flushlist.lincheck.QiProtocolModel.Start;
import io.github.dmarflush.flushlist.lincheck.QiProtocolScenarios.Name;
import io.github.dmarflush.flushlist.variants.Variant;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Lincheck checks of this package, run on the broken variants of {@link Variant}: each
 * run must fail, with the failure headline named here. The options are those of the tests
 * of the correct code: a list variant runs {@link FlushListScenarios#modelChecking()}
 * whole; a protocol variant runs the scenario of {@link QiProtocolScenarios} written for
 * it, with the same invocation budget, which that test also runs on the library.
 *
 * <ul>
 *   <li>{@code caught}: the mistakes a sequentially consistent model checker can see. Each
 *       run stops at its first failure.</li>
 *   <li>{@code controls}: {@code BrokenQiSequencer} with nothing broken passes the same
 *       scenarios, so the failures of its variants come from their one change (it sleeps
 *       on an msleep-like primitive, not on the library's {@code Condition}).</li>
 *   <li>{@code blindSpots} (only with {@code -Dlincheck.mode=long}): the mistakes that
 *       need a reordering of memory accesses, or (M6) a store buffer; the check passes on
 *       them, as expected under sequential consistency.</li>
 * </ul>
 * {@code -Dlincheck.variants=M5,M7} runs only the named variants. Each run's first lines go
 * to {@code target/lincheck-variants.txt}.
 */
@Tag("lincheck")
class BrokenVariantsLincheckTest {

    // One model class per (variant, start): Lincheck builds the tested object through a
    // public no-argument constructor.

    public static class ListM1 extends FlushListModel {
        public ListM1() {
            super(Impl.ZOMBIE_HEAD, Variant.M1_RETIRE_NEW_ZOMBIE);
        }
    }

    public static class ListM2LinkBeforeFill extends FlushListModel {
        public ListM2LinkBeforeFill() {
            super(Impl.ZOMBIE_HEAD, Variant.M2_LINK_BEFORE_FILL);
        }
    }

    public static class ListM2PlainStore extends FlushListModel {
        public ListM2PlainStore() {
            super(Impl.ZOMBIE_HEAD, Variant.M2_PLAIN_STORE);
        }
    }

    public static class ListM3 extends FlushListModel {
        public ListM3() {
            super(Impl.ZOMBIE_HEAD, Variant.M3_OFF_BY_ONE);
        }
    }

    public static class ProtocolM1 extends QiProtocolModel {
        public ProtocolM1() {
            super(Variant.M1_RETIRE_NEW_ZOMBIE, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM2LinkBeforeFill extends QiProtocolModel {
        public ProtocolM2LinkBeforeFill() {
            super(Variant.M2_LINK_BEFORE_FILL, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM3 extends QiProtocolModel {
        public ProtocolM3() {
            super(Variant.M3_OFF_BY_ONE, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM4 extends QiProtocolModel {
        public ProtocolM4() {
            super(Variant.M4_SIGNED_COMPARE, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM5 extends QiProtocolModel {
        public ProtocolM5() {
            super(Variant.M5_WRAP_WITHOUT_WAIT, Start.WRAP);
        }
    }

    public static class ProtocolM6 extends QiProtocolModel {
        public ProtocolM6() {
            super(Variant.M6_REGISTER_AFTER_TAIL, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM6AcrossWrap extends QiProtocolModel {
        public ProtocolM6AcrossWrap() {
            super(Variant.M6_REGISTER_AFTER_TAIL, Start.WRAP);
        }
    }

    public static class ProtocolM7 extends QiProtocolModel {
        public ProtocolM7() {
            super(Variant.M7_WAKE_WITHOUT_LOCK, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM8 extends QiProtocolModel {
        public ProtocolM8() {
            super(Variant.M8_NO_SECOND_DRAIN, Start.SIGN_BIT);
        }
    }

    public static class ProtocolM9 extends QiProtocolModel {
        public ProtocolM9() {
            super(Variant.M9_TAIL_BEFORE_LINK, Start.SIGN_BIT);
        }
    }

    public static class ProtocolF1 extends QiProtocolModel {
        public ProtocolF1() {
            super(Variant.F1_WRAP_KEEPS_SEQHW, Start.WRAP);
        }
    }

    public static class SequencerCopyAcrossSignBit extends QiProtocolModel {
        public SequencerCopyAcrossSignBit() {
            super(Variant.NONE, Start.SIGN_BIT, true);
        }
    }

    public static class SequencerCopyAcrossWrap extends QiProtocolModel {
        public SequencerCopyAcrossWrap() {
            super(Variant.NONE, Start.WRAP, true);
        }
    }

    /** Lincheck's headline for a result no sequential execution of the spec gives. */
    static final String INVALID_RESULTS = "= Invalid execution results =";
    /** Lincheck's headline for a failed {@code @Validate} function. */
    static final String VALIDATION_FAILED = "= Validation function validate has failed =";
    /** Lincheck's headline for an execution in which some thread can never go on. */
    static final String HUNG = "= The execution has hung =";

    /** Which check runs. */
    enum Check {
        /** {@link FlushListScenarios#modelChecking()} against {@link FifoSpec}. */
        LIST,
        /** {@link QiProtocolScenarios#modelChecking} from the model's start. */
        PROTOCOL
    }

    /**
     * One run.
     *
     * @param variant the variant
     * @param check which check
     * @param model the tested class
     * @param start the protocol's start, or null for the list
     * @param scenarios the protocol scenarios to run (all of them if empty); the list
     *     check always runs its full options
     * @param expected the headline the failure must carry, or null when the run must pass
     */
    record Case(Variant variant, Check check, Class<?> model, Start start, List<Name> scenarios,
            String expected) {
        @Override
        public String toString() {
            String what = variant == Variant.NONE ? "none"
                    : variant.name().substring(variant.shortName().length() + 1).toLowerCase(Locale.ROOT);
            return variant.shortName() + " " + what + ", " + check.name().toLowerCase(Locale.ROOT)
                    + (start == null ? "" : " from " + start.name().toLowerCase(Locale.ROOT))
                    + (scenarios.isEmpty() ? "" : " " + scenarios.toString().toLowerCase(Locale.ROOT))
                    + (variant == Variant.NONE ? " (unbroken copy)" : "");
        }
    }

    private static Case list(Variant v, Class<?> model, String expected) {
        return new Case(v, Check.LIST, model, null, List.of(), expected);
    }

    private static Case protocol(Variant v, Class<?> model, Start start, Name scenario, String expected) {
        return new Case(v, Check.PROTOCOL, model, start, List.of(scenario), expected);
    }

    /**
     * The list variants run the full options of the list check (its written-out
     * scenarios come first). A protocol variant runs the scenario written for it, with
     * the invocation budget of the protocol check.
     */
    static Stream<Case> caught() {
        return Stream.of(
                list(Variant.M1_RETIRE_NEW_ZOMBIE, ListM1.class, INVALID_RESULTS),
                list(Variant.M2_LINK_BEFORE_FILL, ListM2LinkBeforeFill.class, INVALID_RESULTS),
                list(Variant.M3_OFF_BY_ONE, ListM3.class, INVALID_RESULTS),
                protocol(Variant.M1_RETIRE_NEW_ZOMBIE, ProtocolM1.class, Start.SIGN_BIT,
                        Name.DRAIN_BESIDE_UNLOAD, VALIDATION_FAILED),
                protocol(Variant.M2_LINK_BEFORE_FILL, ProtocolM2LinkBeforeFill.class, Start.SIGN_BIT,
                        Name.UNLOAD_BESIDE_TASK, VALIDATION_FAILED),
                protocol(Variant.M3_OFF_BY_ONE, ProtocolM3.class, Start.SIGN_BIT,
                        Name.TASK_RACES_HARDWARE, VALIDATION_FAILED),
                protocol(Variant.M4_SIGNED_COMPARE, ProtocolM4.class, Start.SIGN_BIT,
                        Name.TASK_RACES_HARDWARE, VALIDATION_FAILED),
                protocol(Variant.M5_WRAP_WITHOUT_WAIT, ProtocolM5.class, Start.WRAP,
                        Name.UNLOAD_BESIDE_TASK, VALIDATION_FAILED),
                protocol(Variant.M7_WAKE_WITHOUT_LOCK, ProtocolM7.class, Start.SIGN_BIT,
                        Name.WAITER_ALONE, HUNG),
                protocol(Variant.M8_NO_SECOND_DRAIN, ProtocolM8.class, Start.SIGN_BIT,
                        Name.TASK_RACES_HARDWARE, VALIDATION_FAILED),
                protocol(Variant.M9_TAIL_BEFORE_LINK, ProtocolM9.class, Start.SIGN_BIT,
                        Name.UNLOAD_BESIDE_TASK, VALIDATION_FAILED),
                protocol(Variant.F1_WRAP_KEEPS_SEQHW, ProtocolF1.class, Start.WRAP,
                        Name.UNLOAD_BESIDE_TASK, VALIDATION_FAILED));
    }

    /**
     * The unbroken copy of the sequencer on the scenarios its variants fail (M4, M7 from
     * the sign bit; M5, F1 across the wrap); on every scenario in the long run.
     */
    static Stream<Case> controls() {
        if (LincheckBudget.LONG) {
            return Stream.of(
                    new Case(Variant.NONE, Check.PROTOCOL, SequencerCopyAcrossSignBit.class, Start.SIGN_BIT,
                            List.of(), null),
                    new Case(Variant.NONE, Check.PROTOCOL, SequencerCopyAcrossWrap.class, Start.WRAP,
                            List.of(), null));
        }
        return Stream.of(
                new Case(Variant.NONE, Check.PROTOCOL, SequencerCopyAcrossSignBit.class, Start.SIGN_BIT,
                        List.of(Name.WAITER_ALONE, Name.TASK_RACES_HARDWARE), null),
                new Case(Variant.NONE, Check.PROTOCOL, SequencerCopyAcrossWrap.class, Start.WRAP,
                        List.of(Name.UNLOAD_BESIDE_TASK), null));
    }

    /** Long run only: every scenario, the full invocation budget, and the check must pass. */
    static Stream<Case> blindSpots() {
        return Stream.of(
                list(Variant.M2_PLAIN_STORE, ListM2PlainStore.class, null),
                new Case(Variant.M6_REGISTER_AFTER_TAIL, Check.PROTOCOL, ProtocolM6.class, Start.SIGN_BIT,
                        List.of(), null),
                new Case(Variant.M6_REGISTER_AFTER_TAIL, Check.PROTOCOL, ProtocolM6AcrossWrap.class, Start.WRAP,
                        List.of(), null));
    }

    private static final List<String> REPORT = new ArrayList<>();

    @ParameterizedTest(name = "{0}")
    @MethodSource("caught")
    void lincheckReportsTheMistake(Case c) {
        selected(c);
        String message = run(c);
        if (message == null) {
            fail(c + ": Lincheck reported no failure; the check cannot see this mistake");
        }
        assertTrue(message.contains(c.expected()),
                c + ": expected a failure headed '" + c.expected() + "', got:\n" + message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("controls")
    void unbrokenCopyPasses(Case c) {
        selected(c);
        String message = run(c);
        if (message != null) {
            fail(c + ": the unbroken copy of the sequencer fails:\n" + message);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("blindSpots")
    void lincheckCannotSeeMemoryOrderingMistakes(Case c) {
        Assumptions.assumeTrue(LincheckBudget.LONG, "runs with -Dlincheck.mode=long");
        selected(c);
        String message = run(c);
        if (message != null) {
            fail(c + ": expected no failure under sequential consistency, got:\n" + message);
        }
    }

    /** Skips the case unless -Dlincheck.variants is unset or names its variant. */
    private static void selected(Case c) {
        String names = System.getProperty("lincheck.variants", "").trim();
        if (names.isEmpty() || c.variant() == Variant.NONE) {
            return;
        }
        boolean hit = Arrays.stream(names.split(","))
                .map(String::trim)
                .anyMatch(n -> n.equalsIgnoreCase(c.variant().shortName()) || n.equalsIgnoreCase(c.variant().name()));
        Assumptions.assumeTrue(hit, "not in -Dlincheck.variants=" + names);
    }

    /** Runs the check; returns Lincheck's failure report, or null if it passed. */
    private static String run(Case c) {
        long t0 = System.nanoTime();
        String message = null;
        try {
            if (c.check() == Check.LIST) {
                FlushListScenarios.modelChecking().check(c.model());
            } else {
                (c.scenarios().isEmpty()
                        ? QiProtocolScenarios.modelChecking(c.start())
                        : QiProtocolScenarios.modelChecking(c.start(), c.scenarios())).check(c.model());
            }
        } catch (AssertionError e) {
            message = String.valueOf(e.getMessage());
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        String line = String.format(Locale.ROOT, "%s: %s in %.1f s", c,
                message == null ? "no failure" : "FAILED", seconds);
        System.out.println("[lincheck variants] " + line);
        synchronized (REPORT) {
            REPORT.add(line);
            if (message != null) {
                REPORT.add(LincheckReports.summary(message));
            }
        }
        return message;
    }

    @AfterAll
    static void writeReport() throws IOException {
        Path out = Path.of("target", "lincheck-variants.txt");
        Files.createDirectories(out.getParent());
        synchronized (REPORT) {
            Files.write(out, REPORT, StandardCharsets.UTF_8);
        }
    }
}
