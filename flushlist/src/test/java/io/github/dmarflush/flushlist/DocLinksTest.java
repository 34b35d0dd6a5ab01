package io.github.dmarflush.flushlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative Markdown link in {@code README.md} and under {@code docs/} names a file or
 * directory of the repository, and a {@code #fragment} into a Markdown file names one of its
 * headings (GitHub's anchor rule: lower case, punctuation dropped, spaces to hyphens). Links
 * inside fenced code blocks and to other sites are not checked.
 */
class DocLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    /** The repository root: surefire runs in the module directory. */
    private static Path root() {
        return Path.of("").toAbsolutePath().getParent();
    }

    private static String withoutCodeBlocks(String text) {
        StringBuilder sb = new StringBuilder();
        boolean inside = false;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("```")) {
                inside = !inside;
            } else if (!inside) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }

    static String anchor(String heading) {
        String h = heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "");
        return h.replace(' ', '-');
    }

    private static Set<String> anchors(Path md) throws IOException {
        Set<String> out = new HashSet<>();
        for (String line : withoutCodeBlocks(Files.readString(md)).split("\n")) {
            if (line.startsWith("#")) {
                out.add(anchor(line.replaceFirst("^#+", "")));
            }
        }
        return out;
    }

    static List<String> brokenLinks(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path f : files) {
            Matcher m = LINK.matcher(withoutCodeBlocks(Files.readString(f)));
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^[a-z]+:.*")) {
                    continue;
                }
                int hash = link.indexOf('#');
                String path = hash < 0 ? link : link.substring(0, hash);
                String fragment = hash < 0 ? "" : link.substring(hash + 1);
                Path target = path.isEmpty() ? f : f.getParent().resolve(path).normalize();
                if (!Files.exists(target)) {
                    broken.add(root.relativize(f) + ": no such file: " + link);
                } else if (!fragment.isEmpty() && target.toString().endsWith(".md")
                        && !anchors(target).contains(fragment)) {
                    broken.add(root.relativize(f) + ": no such heading: " + link);
                }
            }
        }
        return broken;
    }

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsResolves() throws IOException {
        assertEquals(List.of(), brokenLinks(root()));
    }

    @Test
    void aMissingFileAndAMissingHeadingAreReported(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("docs/a.md"), "# A page\n\n## The `mvn -B verify` run\n");
        Files.writeString(dir.resolve("README.md"), String.join("\n",
                "[ok](docs/a.md#the-mvn--b-verify-run) [web](https://example.org/x)",
                "[gone](docs/b.md) [bad](docs/a.md#nowhere)",
                "```", "[in code](docs/c.md)", "```", ""));
        List<String> broken = brokenLinks(dir);
        assertEquals(2, broken.size(), broken.toString());
        assertTrue(broken.get(0).endsWith("no such file: docs/b.md"), broken.get(0));
        assertTrue(broken.get(1).endsWith("no such heading: docs/a.md#nowhere"), broken.get(1));
    }
}
