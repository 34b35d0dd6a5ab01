package io.github.dmarflush.seeded.matrix;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every seeded copy is the library class with its bug and nothing else: every difference
 * from the library's text (class name aside) lies within two lines of a
 * {@code SEEDED BUG <variant>:} mark, and there is at least one. A change to the library
 * that the copies do not follow fails here.
 */
class SourceDiffTest {

    @Test
    void everyCopyDiffersFromTheLibraryOnlyAtItsSeededBug() {
        Path root = Matrix.root(null);
        for (SourceDiff.Copy c : SourceDiff.COPIES) {
            List<String> lib = SourceDiff.normalized(SourceDiff.read(root.resolve(c.library())), null, null);
            List<String> copy = SourceDiff.normalized(SourceDiff.read(root.resolve(c.copy())), c.copyClass(),
                    c.libraryClass());
            List<SourceDiff.Hunk> hunks = SourceDiff.hunks(lib, copy);
            assertFalse(hunks.isEmpty(), c.copy() + " is the library's text: no bug seeded");
            String mark = "SEEDED BUG " + c.variant().name() + ":";
            for (SourceDiff.Hunk h : hunks) {
                boolean marked = false;
                for (int i = Math.max(0, h.b0() - 2); i < Math.min(copy.size(), h.b1() + 2); i++) {
                    marked |= copy.get(i).contains(mark);
                }
                assertTrue(marked, c.copy() + ": a difference from the library without a '" + mark
                        + "' mark near it, at library line " + (h.a0() + 1) + ":\n"
                        + String.join("\n", lib.subList(h.a0(), h.a1())) + "\n---\n"
                        + String.join("\n", copy.subList(h.b0(), h.b1())));
            }
        }
    }

    @Test
    void theDiffOfAVariantShowsItsMark() {
        String d = SourceDiff.describe(io.github.dmarflush.seeded.Variant.M4, Matrix.root(null));
        assertTrue(d.contains("+ ") && d.contains("SEEDED BUG M4:"), d);
    }
}
