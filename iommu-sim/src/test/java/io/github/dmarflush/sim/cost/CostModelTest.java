package io.github.dmarflush.sim.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.repro.Calibration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CostModelTest {

    /** The shipped model is the fit's: no starting guess left in it, every fitted cost sourced to the fit. */
    @Test
    void theBuiltInModelIsTheFit() {
        CostModel m = CostModel.builtIn();
        for (Cost c : Cost.values()) {
            assertFalse(m.source(c).contains("starting guess") || m.source(c).contains("provisional"),
                    c.key() + ": " + m.source(c));
        }
        for (Calibration.Range r : Calibration.FITTED_B) {
            assertTrue(m.source(r.cost()).startsWith("fit to FreeBSD's state B"), r.cost().key());
        }
        for (Calibration.Range r : Calibration.FITTED_A) {
            assertTrue(m.source(r.cost()).startsWith("fit to FreeBSD's state A"), r.cost().key());
        }
    }

    @Test
    void formatParsesBackToTheSameModel() throws Exception {
        CostModel m = CostModel.builtIn().with(Cost.RX_STACK_NS, 1234, "a test");
        CostModel back = CostModel.parse("round trip", m.format());
        for (Cost c : Cost.values()) {
            assertEquals(m.get(c), back.get(c), c.key());
            assertEquals(m.source(c), back.source(c), c.key());
        }
        assertEquals(1234, back.get(Cost.RX_STACK_NS));
    }

    /** Replaces one line of a valid file and checks the error names the file and the line. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "rx.stack_ns = 100|costs.txt:LINE: 'rx.stack_ns' has no source; write where the number comes from after 'source:'",
        "rx.stack_ns = 100 source:   |costs.txt:LINE: 'rx.stack_ns' has no source; write where the number comes from after 'source:'",
        "rx.stack_ns = fast source: x|costs.txt:LINE: 'rx.stack_ns' must be a whole number of ns, got 'fast'",
        "rx.stack_ns = -5 source: x|costs.txt:LINE: 'rx.stack_ns' must be 0..1000000000 ns, got -5",
        "rx.stack_ns = 1000000000000000 source: x|costs.txt:LINE: 'rx.stack_ns' must be 0..1000000000 ns, got 1000000000000000",
        "rx.stak_ns = 5 source: x|costs.txt:LINE: unknown cost 'rx.stak_ns'",
        "just words|costs.txt:LINE: expected 'key = value  source: ...', got: just words",
    })
    void aMalformedLineIsReportedWithFileAndLine(String replacement, String expected) {
        String valid = CostModel.builtIn().format();
        String[] lines = valid.split("\n");
        int i = 0;
        while (!lines[i].startsWith("rx.stack_ns")) {
            i++;
        }
        lines[i] = replacement;
        String text = "# header\n" + String.join("\n", lines);
        CostModel.CostFileException e = assertThrows(CostModel.CostFileException.class,
                () -> CostModel.parse("costs.txt", text));
        assertEquals(expected.replace("LINE", String.valueOf(i + 2)), e.getMessage());
    }

    /** Values a run cannot use are refused where they are written, not deep inside a run. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "model.variation_pct|100|'model.variation_pct' must be 0..99 percent, got 100",
        "lock.pause_ns|0|'lock.pause_ns' must be 1..1000000 ns, got 0",
        "nic.line_mbps|0|'nic.line_mbps' must be 1..1000000 Mbit/s, got 0",
        "rx.ring_slots|0|'rx.ring_slots' must be 1..65536 buffers, got 0",
        "rx.budget|0|'rx.budget' must be 1..65536 packets, got 0",
        "prio.qi_task|4294967300|'prio.qi_task' must be 0..255 priority, got 4294967300",
        "lock.delay_base|0|'lock.delay_base' must be 1..256 pauses, got 0",
    })
    void aValueOutsideItsRangeIsRefused(String key, String value, String expected) {
        String text = CostModel.builtIn().format().lines()
                .map(l -> l.startsWith(key + " ") ? key + " = " + value + " source: x" : l)
                .reduce("", (a, b) -> a + b + "\n");
        CostModel.CostFileException e = assertThrows(CostModel.CostFileException.class,
                () -> CostModel.parse("c", text));
        assertTrue(e.getMessage().matches("c:\\d+: \\Q" + expected + "\\E"), e.getMessage());
        Cost c = Cost.byKey(key);
        assertThrows(IllegalArgumentException.class,
                () -> CostModel.builtIn().with(c, Long.parseLong(value), "x"));
    }

    @Test
    void everyMissingCostIsNamedAndAByteOrderMarkIsIgnored() throws Exception {
        String valid = CostModel.builtIn().format();
        String without = valid.lines().filter(l -> !l.startsWith("rx.budget") && !l.startsWith("prio.rx"))
                .reduce("", (a, b) -> a + b + "\n");
        CostModel.CostFileException e = assertThrows(CostModel.CostFileException.class,
                () -> CostModel.parse("c", without));
        assertEquals("c: 'rx.budget', 'prio.rx' are missing", e.getMessage());
        assertEquals(16, CostModel.parse("bom", "\uFEFF" + valid).get(Cost.RX_BUDGET));
    }

    @Test
    void aMissingOrDuplicatedCostIsAnError() {
        String valid = CostModel.builtIn().format();
        String without = valid.lines().filter(l -> !l.startsWith("rx.budget")).reduce("", (a, b) -> a + b + "\n");
        CostModel.CostFileException e = assertThrows(CostModel.CostFileException.class,
                () -> CostModel.parse("c", without));
        assertEquals("c: 'rx.budget' is missing", e.getMessage());
        String twice = valid + "rx.budget = 8 source: again\n";
        e = assertThrows(CostModel.CostFileException.class, () -> CostModel.parse("c", twice));
        assertEquals("c:" + (valid.lines().count() + 1) + ": 'rx.budget' given twice", e.getMessage());
    }

    @Test
    void anUnreadableFileIsNamed(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.costs");
        CostModel.CostFileException e = assertThrows(CostModel.CostFileException.class, () -> CostModel.load(missing));
        assertEquals(missing + ": no such file", e.getMessage());
        Path good = dir.resolve("good.costs");
        Files.writeString(good, CostModel.builtIn().format());
        assertEquals(good.toString(), CostModel.load(good).name());
    }
}
