package io.github.dmarflush.seeded.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.seeded.Variant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The seeded-bugs matrix in {@code mvn verify}: the fast subset by default
 * ({@code -Dseeded.matrix=fast}; {@code full} for everything, which needs
 * {@code stress-tests/target/jcstress.jar} built before; {@code skip} for nothing). Fails when
 * the correct row fails a check or runs none, a variant goes uncaught, a cell cannot run, or a
 * variant is no longer caught by the check pinned for it below (so a variant that became the
 * correct code, or a check that stopped looking, fails here and not only in the verdict).
 */
class SeededMatrixTest {

    /**
     * The cell that must catch each variant in the fast subset, and how its first line must
     * start: a unit check's name, or TLC's result line.
     */
    static final Map<Variant, Map.Entry<Column, String>> PINNED = pinned();

    private static Map<Variant, Map.Entry<Column, String>> pinned() {
        Map<Variant, Map.Entry<Column, String>> m = new EnumMap<>(Variant.class);
        m.put(Variant.M1, Map.entry(Column.UNIT, "drainStopsAtTheFirstUnprocessedEntry: retired entry 1 while it is still on the list"));
        m.put(Variant.M2L, Map.entry(Column.UNIT, "drainBetweenTheUnmapStepsReleasesNothingUnfinished:"));
        m.put(Variant.M2P, Map.entry(Column.TLC, "M2P: Error: Invariant NoReleaseBeforeInvalidated is violated."));
        m.put(Variant.M3, Map.entry(Column.UNIT, "drainStopsAtTheFirstUnprocessedEntry: with 3 of 5 completed"));
        m.put(Variant.M4, Map.entry(Column.UNIT, "seqsAcrossTheSignBitCompareUnsigned:"));
        m.put(Variant.M5, Map.entry(Column.UNIT, "wrapWaitsForTheOldGenerationsLastSeq:"));
        m.put(Variant.M6, Map.entry(Column.UNIT, "waiterRegistersBeforeTheTailAdvance:"));
        m.put(Variant.M7, Map.entry(Column.UNIT, "wakeupCannotFallBetweenACheckAndItsSleep:"));
        m.put(Variant.M8, Map.entry(Column.UNIT, "entryCompletedBeforeTheIwcClearIsReleasedInThatPass:"));
        m.put(Variant.M9, Map.entry(Column.UNIT, "interruptDrivenTaskReleasesEveryCompletedEntry:"));
        m.put(Variant.FREEBSD_WRAP, Map.entry(Column.UNIT, "seqsAfterTheWrapWaitForTheirStatusWrite:"));
        return m;
    }

    @Test
    void everyVariantIsCaughtAndTheCorrectRowIsClean() {
        String mode = System.getProperty("seeded.matrix", "fast");
        Assumptions.assumeFalse(mode.equals("skip"), "-Dseeded.matrix=skip");
        Matrix.Options o = new Matrix.Options(Arrays.asList(Variant.values()), Arrays.asList(Column.values()),
                !mode.equals("full"), Matrix.root(null));
        Matrix.Report r = Matrix.run(o, System.out);
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<Variant, Map<Column, Matrix.Cell>> row : r.cells().entrySet()) {
            Variant v = row.getKey();
            List<Matrix.Outcome> outcomes = row.getValue().values().stream().map(Matrix.Cell::outcome).toList();
            if (v == Variant.CORRECT) {
                if (!outcomes.contains(Matrix.Outcome.PASSED)) {
                    wrong.add("the correct row ran no check");
                }
                row.getValue().forEach((c, cell) -> {
                    if (cell.outcome() == Matrix.Outcome.CAUGHT || cell.outcome() == Matrix.Outcome.ERROR) {
                        wrong.add("CORRECT x " + c.label() + ": " + cell.outcome() + " " + cell.detail());
                    }
                });
                continue;
            }
            if (!outcomes.contains(Matrix.Outcome.CAUGHT)) {
                wrong.add(v + " was caught by no check: " + row.getValue());
            }
            Map.Entry<Column, String> pin = PINNED.get(v);
            Matrix.Cell cell = row.getValue().get(pin.getKey());
            if (cell.outcome() != Matrix.Outcome.CAUGHT || !cell.detail().startsWith(pin.getValue())) {
                wrong.add(v + " x " + pin.getKey().label() + " should be caught with \"" + pin.getValue() + "...\", was "
                        + cell.outcome() + " " + cell.detail());
            }
        }
        assertEquals(List.of(), wrong, "seeded-bugs matrix");
        assertTrue(r.ok(), "seeded-bugs matrix: " + String.join("; ", r.verdict()));
    }

    @Test
    void everyVariantHasAPinnedCatcherInTheFastSubset() {
        for (Variant v : Variant.values()) {
            if (v == Variant.CORRECT) {
                continue;
            }
            Map.Entry<Column, String> pin = PINNED.get(v);
            assertTrue(pin != null && Plan.fast(pin.getKey(), v) && Plan.notApplicable(pin.getKey(), v) == null,
                    v + " needs a pinned catcher that the fast subset runs");
        }
    }

    private static Map<Variant, Map<Column, Matrix.Cell>> cells(Object... rows) {
        Map<Variant, Map<Column, Matrix.Cell>> m = new LinkedHashMap<>();
        for (int i = 0; i < rows.length; i += 2) {
            Map<Column, Matrix.Cell> row = new EnumMap<>(Column.class);
            for (Column c : Column.values()) {
                row.put(c, new Matrix.Cell((Matrix.Outcome) rows[i + 1], 1, "x"));
            }
            m.put((Variant) rows[i], row);
        }
        return m;
    }

    @Test
    void theVerdictFailsAnUncaughtVariantAndADirtyCorrectRow() {
        assertTrue(Matrix.verdict(cells(Variant.CORRECT, Matrix.Outcome.PASSED, Variant.M3, Matrix.Outcome.CAUGHT))
                .isEmpty());
        List<String> uncaught = Matrix.verdict(cells(Variant.CORRECT, Matrix.Outcome.PASSED,
                Variant.M3, Matrix.Outcome.PASSED));
        assertEquals(1, uncaught.size(), uncaught.toString());
        assertTrue(uncaught.get(0).startsWith("M3 "), uncaught.toString());
        assertFalse(Matrix.verdict(cells(Variant.CORRECT, Matrix.Outcome.CAUGHT)).isEmpty());
        assertFalse(Matrix.verdict(cells(Variant.CORRECT, Matrix.Outcome.ERROR)).isEmpty());
    }

    @Test
    void theUnitChecksPassOnTheLibraryAndFailOnAVariant() {
        assertEquals(List.of(), UnitChecks.runAll(Variant.CORRECT));
        List<String> m8 = UnitChecks.runAll(Variant.M8);
        assertEquals(1, m8.size(), m8.toString());
        assertTrue(m8.get(0).startsWith("entryCompletedBeforeTheIwcClearIsReleasedInThatPass:"), m8.toString());
    }
}
