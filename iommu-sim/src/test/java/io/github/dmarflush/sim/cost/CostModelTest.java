package io.github.dmarflush.sim.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CostModelTest {

    @Test
    void theBuiltInFileNamesASourceForEveryCost() {
        CostModel m = CostModel.builtIn();
        for (Cost c : Cost.values()) {
            assertFalse(m.source(c).isBlank(), c.key());
            assertTrue(m.get(c) >= 0, c.key());
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
        "rx.stack_ns = -5 source: x|costs.txt:LINE: 'rx.stack_ns' must be >= 0, got -5",
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
