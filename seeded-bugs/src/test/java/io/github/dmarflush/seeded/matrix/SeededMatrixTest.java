package io.github.dmarflush.seeded.matrix;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.seeded.Variant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The seeded-bugs matrix in {@code mvn verify}: the fast subset by default
 * ({@code -Dseeded.matrix=fast}; {@code full} for everything, which needs
 * {@code stress-tests/target/jcstress.jar} built before; {@code skip} for nothing). Fails when
 * the correct row fails a check, a variant of the subset goes uncaught, or a cell cannot run.
 */
class SeededMatrixTest {

    @Test
    void everyVariantIsCaughtAndTheCorrectRowIsClean() {
        String mode = System.getProperty("seeded.matrix", "fast");
        Assumptions.assumeFalse(mode.equals("skip"), "-Dseeded.matrix=skip");
        Matrix.Options o = new Matrix.Options(Arrays.asList(Variant.values()), Arrays.asList(Column.values()),
                !mode.equals("full"), Matrix.root(null));
        Matrix.Report r = Matrix.run(o, System.out);
        assertTrue(r.ok(), "seeded-bugs matrix: " + String.join("; ", r.verdict()));
        List<Matrix.Cell> correct = List.copyOf(r.cells().get(Variant.CORRECT).values());
        assertTrue(correct.stream().anyMatch(c -> c.outcome() == Matrix.Outcome.PASSED),
                "the correct row ran no check");
    }
}
