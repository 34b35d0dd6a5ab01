package io.github.dmarflush.seeded.matrix;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs TLC on one model of {@code tla/src/tla} in a child JVM, as the tla module's
 * {@code TlcModelsTest} does (one worker, {@code -lncheck final}, states under the model's
 * work directory), and reads its outcome. The expectation is the model's own
 * {@code \* expect:} line, which {@code TlcModelsTest} pins.
 */
final class TlcRunner {

    /** What TLC reported. */
    enum Kind {
        /** "Model checking completed. No error has been found.", exit 0. */
        NO_ERROR,
        /** An invariant (exit 12) or a temporal property (exit 13) violated. */
        VIOLATION,
        /** Anything else: a TLC error, a deadlock, a time-out. */
        OTHER
    }

    /**
     * @param kind what TLC reported
     * @param resultLine its result line
     * @param expect the cfg's expectation ({@code pass}, {@code invariant X}, {@code property X})
     * @param matchesPin whether the result is the expected one
     */
    record Result(Kind kind, String resultLine, String expect, boolean matchesPin) {
    }

    private TlcRunner() {
    }

    static Result run(String model, Path sources, Path dir, long limitSeconds) throws IOException, InterruptedException {
        Path cfg = sources.resolve(model + ".cfg");
        String cfgText = Files.readString(cfg, StandardCharsets.UTF_8);
        String expect = "?";
        for (String l : cfgText.split("\n")) {
            if (l.startsWith("\\* expect: ")) {
                expect = l.substring("\\* expect: ".length()).trim();
            }
        }
        deleteRecursively(dir);
        Files.createDirectories(dir);
        Files.copy(sources.resolve("QiFlushList.tla"), dir.resolve("QiFlushList.tla"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(cfg, dir.resolve(model + ".cfg"), StandardCopyOption.REPLACE_EXISTING);
        Path out = dir.resolve("tlc.out");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", Matrix.tlaToolsJar().toString(), "tlc2.TLC",
                "-workers", "1", "-lncheck", "final", "-checkpoint", "0", "-cleanup",
                "-metadir", "states", "-config", model + ".cfg", "QiFlushList"));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            return new Result(Kind.OTHER, "ran over " + limitSeconds + " s", expect, false);
        }
        String log = Files.readString(out, StandardCharsets.UTF_8);
        int exit = p.exitValue();
        String line = "(no result line, exit " + exit + ")";
        for (String l : log.split("\n")) {
            if (l.startsWith("Model checking completed.") || l.startsWith("Error: Invariant ")
                    || l.startsWith("Error: Temporal properties") || l.startsWith("Error: Deadlock")) {
                line = l.trim();
                break;
            }
        }
        Kind kind;
        if (exit == 0 && log.contains("Model checking completed. No error has been found.")) {
            kind = Kind.NO_ERROR;
        } else if ((exit == 12 && line.startsWith("Error: Invariant ") && line.endsWith(" is violated."))
                || (exit == 13 && line.startsWith("Error: Temporal properties were violated."))) {
            kind = Kind.VIOLATION;
        } else {
            kind = Kind.OTHER;
        }
        boolean pin = switch (kind) {
            case NO_ERROR -> expect.equals("pass");
            case VIOLATION -> expect.startsWith("invariant ")
                    ? line.equals("Error: Invariant " + expect.substring("invariant ".length()) + " is violated.")
                    : expect.startsWith("property ");
            case OTHER -> false;
        };
        return new Result(kind, line, expect, pin);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(f -> {
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
