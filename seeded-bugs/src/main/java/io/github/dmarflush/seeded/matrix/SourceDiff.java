package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.seeded.Variant;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Each seeded copy against the library class it copies, so that the difference reads as the
 * bug: both files from the Javadoc of their public class on, with the copy's class name
 * replaced by the library's and the {@code WaitSequencer} interface dropped from its header
 * (the copies are otherwise the library's text, package, imports and padding superclasses
 * aside). {@code java -jar seeded-bugs/target/seeded-bugs.jar --diff M4} prints it; the
 * seeded-bugs tests check that every difference sits at a {@code SEEDED BUG} mark.
 */
final class SourceDiff {

    /**
     * @param variant the variant
     * @param copy the copy, relative to the repository root
     * @param library the library file it copies
     * @param copyClass the copy's class name
     * @param libraryClass the library's class name
     */
    record Copy(Variant variant, String copy, String library, String copyClass, String libraryClass) {
    }

    /** The list copies: in the library's package, for FlushEntry's link and the padding superclasses. */
    private static final String SEEDED = "seeded-bugs/src/main/java/io/github/dmarflush/flushlist/";
    /** The copies of the QI classes, which need only public API. */
    private static final String VARIANTS = "seeded-bugs/src/main/java/io/github/dmarflush/seeded/variants/";
    private static final String LIBRARY = "flushlist/src/main/java/io/github/dmarflush/flushlist/";

    /** Every copy of a library class. M2L and M9 are orders of the caller's steps, in {@code Variant.unmap}. */
    static final List<Copy> COPIES = List.of(
            list(Variant.M1), list(Variant.M2P), list(Variant.M3),
            sequencer(Variant.M4, "QiSequencerM4"), sequencer(Variant.M5, "QiSequencerM5"),
            sequencer(Variant.M6, "QiSequencerM6"), sequencer(Variant.M7, "QiSequencerM7"),
            sequencer(Variant.FREEBSD_WRAP, "QiSequencerFreeBsdWrap"),
            new Copy(Variant.M8, VARIANTS + "QiTaskM8.java", LIBRARY + "qi/QiTask.java", "QiTaskM8", "QiTask"));

    private static Copy list(Variant v) {
        String name = "ZombieHeadFlushList" + v.name();
        return new Copy(v, SEEDED + name + ".java", LIBRARY + "ZombieHeadFlushList.java", name, "ZombieHeadFlushList");
    }

    private static Copy sequencer(Variant v, String name) {
        return new Copy(v, VARIANTS + name + ".java", LIBRARY + "qi/QiSequencer.java", name, "QiSequencer");
    }

    private SourceDiff() {
    }

    /** One run of differing lines: library lines [a0, a1) became copy lines [b0, b1). */
    record Hunk(int a0, int a1, int b0, int b1) {
    }

    /**
     * @param v a variant
     * @param root the repository root
     * @return the copy's diff against the library, or where the variant's change is
     */
    static String describe(Variant v, Path root) {
        StringBuilder sb = new StringBuilder();
        for (Copy c : COPIES) {
            if (c.variant() == v) {
                List<String> a = normalized(read(root.resolve(c.library())), null, null);
                List<String> b = normalized(read(root.resolve(c.copy())), c.copyClass(), c.libraryClass());
                sb.append("--- ").append(c.library()).append('\n');
                sb.append("+++ ").append(c.copy()).append(" (class name as the library's)\n");
                for (Hunk h : hunks(a, b)) {
                    int from = Math.max(0, h.a0() - 2);
                    int to = Math.min(a.size(), h.a1() + 2);
                    sb.append("@@ library line ").append(h.a0() + 1).append(" @@\n");
                    for (int i = from; i < h.a0(); i++) {
                        sb.append("  ").append(a.get(i)).append('\n');
                    }
                    for (int i = h.a0(); i < h.a1(); i++) {
                        sb.append("- ").append(a.get(i)).append('\n');
                    }
                    for (int i = h.b0(); i < h.b1(); i++) {
                        sb.append("+ ").append(b.get(i)).append('\n');
                    }
                    for (int i = h.a1(); i < to; i++) {
                        sb.append("  ").append(a.get(i)).append('\n');
                    }
                }
            }
        }
        if (sb.length() == 0) {
            if (v == Variant.M2L || v == Variant.M9) {
                sb.append(v).append(" is in the caller, not in a library class: the order of the unmap path's steps in\n")
                        .append("seeded-bugs/src/main/java/io/github/dmarflush/seeded/Variant.java, method unmap:\n\n");
                List<String> lines = read(root.resolve("seeded-bugs/src/main/java/io/github/dmarflush/seeded/Variant.java"));
                boolean in = false;
                for (String l : lines) {
                    if (l.contains("public void unmap(UnmapSteps s)")) {
                        in = true;
                    }
                    if (in) {
                        sb.append(l).append('\n');
                        if (l.equals("    }")) {
                            break;
                        }
                    }
                }
            } else {
                sb.append(v).append(" is the library as shipped.\n");
            }
        }
        sb.append('\n').append("TLA+: ");
        for (String m : Plan.tlcModels(v)) {
            sb.append("tla/src/tla/").append(m).append(".cfg ");
        }
        sb.append(v == Variant.CORRECT ? "(Bug = \"none\")" : v == Variant.FREEBSD_WRAP
                ? "(ResetSeqHwOnWrap = FALSE)" : "(Bug = \"" + Plan.tlcModels(v).get(0) + "\")").append('\n');
        return sb.toString();
    }

    static List<String> read(Path p) {
        try {
            return Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * From the Javadoc of the public class on; with {@code copyClass}, that name replaced by
     * {@code libraryClass} and {@code , WaitSequencer} dropped.
     */
    static List<String> normalized(List<String> lines, String copyClass, String libraryClass) {
        int cls = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).matches("public (final |abstract )*(class|interface|enum) .*")) {
                cls = i;
                break;
            }
        }
        if (cls < 0) {
            throw new IllegalArgumentException("no public class");
        }
        int start = cls;
        while (start > 0 && !lines.get(start).startsWith("/**")) {
            start--;
        }
        List<String> out = new ArrayList<>();
        Pattern name = copyClass == null ? null : Pattern.compile("\\b" + copyClass + "\\b");
        for (String l : lines.subList(start, lines.size())) {
            if (name != null) {
                l = name.matcher(l).replaceAll(libraryClass).replace(", WaitSequencer {", " {");
            }
            out.add(l);
        }
        return out;
    }

    /** The runs of differing lines between {@code a} and {@code b}, from a longest common subsequence. */
    static List<Hunk> hunks(List<String> a, List<String> b) {
        int n = a.size();
        int m = b.size();
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<Hunk> hunks = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a.get(i).equals(b.get(j))) {
                i++;
                j++;
                continue;
            }
            int a0 = i;
            int b0 = j;
            while ((i < n || j < m) && !(i < n && j < m && a.get(i).equals(b.get(j)))) {
                if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
                    i++;
                } else {
                    j++;
                }
            }
            hunks.add(new Hunk(a0, i, b0, j));
        }
        return hunks;
    }

    /** @return the variants that have a copy */
    static List<Variant> copied() {
        return Arrays.stream(Variant.values()).filter(v -> COPIES.stream().anyMatch(c -> c.variant() == v)).toList();
    }
}
