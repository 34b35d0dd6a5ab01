package io.github.dmarflush.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The measuring command: runs every benchmark of this module once, in one JMH run with the
 * GC profiler, with the short profile set by the annotations on each benchmark class (one
 * fork; 2-3 warmup and 2-5 measurement iterations of 1 s), and writes
 * <ul>
 *   <li>{@code RESULTS/STAMP.json}: JMH's JSON result, unmodified;</li>
 *   <li>{@code RESULTS/STAMP-latency.tsv}: the latency histograms ({@link LatencyLog});</li>
 *   <li>{@code RESULTS/STAMP.md}: the tables made from those two files by {@link ReportTable},
 *       headed by the command, JVM, date, wall time and the load averages before and
 *       after.</li>
 * </ul>
 *
 * <p>Usage: {@code java -jar benchmarks/target/benchmarks.jar [--out DIR] [--smoke]
 * [--include REGEX]}. {@code --out} defaults to {@code benchmarks/results} when run from
 * the repository root, else {@code results}. {@code --smoke} runs every benchmark for one
 * 100 ms iteration with no warmup: it checks the pipeline, its figures mean nothing.
 * Exits 1 if a benchmark fails.
 */
public final class ShortProfile {

    /** Every benchmark of this module. */
    static final String ALL = "io\\.github\\.dmarflush\\.bench\\.[A-Za-z]+Benchmark\\.";

    private ShortProfile() {
    }

    /**
     * The JMH options shared by the measuring run and the smoke test.
     *
     * @param include the benchmark regular expression
     * @param latencyLog where the forks append latency histograms, or null
     * @param extraJvmArgs more arguments for the forked JVMs
     * @return the builder, for more options (do not call {@code jvmArgsAppend} again: it
     *     replaces these)
     */
    static ChainedOptionsBuilder options(String include, Path latencyLog, String... extraJvmArgs) {
        java.util.List<String> jvm = new java.util.ArrayList<>(java.util.List.of("-Xms1g", "-Xmx1g"));
        if (latencyLog != null) {
            jvm.add("-D" + LatencyLog.PROPERTY + "=" + latencyLog.toAbsolutePath());
        }
        jvm.addAll(java.util.List.of(extraJvmArgs));
        return new OptionsBuilder()
                .include(include)
                .forks(1)
                .shouldFailOnError(true)
                .jvmArgsAppend(jvm.toArray(new String[0]));
    }

    /** Applies the smoke profile: one fork, no warmup, one 100 ms iteration. */
    static ChainedOptionsBuilder smoke(ChainedOptionsBuilder b) {
        return b.warmupIterations(0).measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100));
    }

    /**
     * @param args see the class documentation
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Files.isDirectory(Path.of("benchmarks")) ? Path.of("benchmarks", "results") : Path.of("results");
        boolean smoke = false;
        String include = ALL;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--smoke" -> smoke = true;
                case "--include" -> include = args[++i];
                default -> {
                    System.err.println("usage: java -jar benchmarks.jar [--out DIR] [--smoke] [--include REGEX]");
                    System.exit(2);
                }
            }
        }
        Files.createDirectories(out);
        ZonedDateTime start = ZonedDateTime.now(ZoneOffset.UTC);
        String stamp = start.format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm'Z'", Locale.ROOT))
                + (smoke ? "-smoke" : "");
        Path json = out.resolve(stamp + ".json");
        Path lat = out.resolve(stamp + "-latency.tsv");
        Path md = out.resolve(stamp + ".md");
        Files.deleteIfExists(lat);

        String calibration = calibrate(40, 60, 100, 120, 300);
        String loadBefore = loadAverage();
        long t0 = System.nanoTime();
        ChainedOptionsBuilder b = options(include, lat)
                .addProfiler(GCProfiler.class)
                .resultFormat(ResultFormatType.JSON)
                .result(json.toString());
        if (smoke) {
            b = smoke(b);
        }
        try {
            new Runner(b.build()).run();
        } catch (RunnerException e) {
            System.err.println("benchmark run failed: " + e.getMessage());
            System.exit(1);
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - t0);
        String loadAfter = loadAverage();

        Map<String, Histogram> latency = Files.exists(lat) ? LatencyLog.read(lat) : Map.of();
        String jmhJson = Files.readString(json, StandardCharsets.UTF_8);
        StringBuilder report = new StringBuilder();
        report.append("### Benchmark run ").append(stamp).append("\n\n");
        int nice = niceness();
        report.append("- Command: `").append(nice > 0 ? "nice -n " + nice + " " : "")
                .append("java -jar benchmarks/target/benchmarks.jar")
                .append(String.join("", java.util.Arrays.stream(args).map(a -> " " + a).toList()))
                .append("` (JMH 1.37, `-prof gc`, 1 fork per benchmark, heap `-Xms1g -Xmx1g`)\n");
        report.append("- JVM: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append(" (")
                .append(System.getProperty("java.vm.vendor")).append("); ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch"))
                .append(", ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs\n");
        report.append("- Date (UTC): ").append(start.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                .substring(0, 16)).append("; wall time ").append(wall.toMinutesPart()).append(" min ")
                .append(wall.toSecondsPart()).append(" s\n");
        report.append("- `Blackhole.consumeCPU` cost in this JVM, best of 10 rounds: ").append(calibration)
                .append('\n');
        report.append("- Load average (1, 5, 15 min) before: ").append(loadBefore)
                .append("; after: ").append(loadAfter).append('\n');
        report.append("- Files: `").append(json.getFileName()).append("` (JMH JSON), `")
                .append(lat.getFileName()).append("` (latency histograms)\n\n");
        report.append(new ReportTable(jmhJson, latency).markdown());
        Files.writeString(md, report.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.print(report);
        System.out.println("Wrote " + json + ", " + lat + ", " + md);
    }

    /**
     * Times {@link Blackhole#consumeCPU} for each token count (the defaults of the realistic
     * and latency workloads), best of 10 rounds of 100,000 calls, in this JVM. A rough guide
     * to what the token counts mean in ns on this machine; the benchmarks run in forks.
     */
    static String calibrate(long... tokens) {
        StringBuilder b = new StringBuilder();
        for (long t : tokens) {
            double best = Double.MAX_VALUE;
            for (int round = 0; round < 10; round++) {
                long s = System.nanoTime();
                for (int i = 0; i < 100_000; i++) {
                    Blackhole.consumeCPU(t);
                }
                best = Math.min(best, (System.nanoTime() - s) / 100_000.0);
            }
            b.append(b.length() == 0 ? "" : ", ").append(t).append(" tokens ")
                    .append(String.format(Locale.ROOT, "%.0f", best)).append(" ns");
        }
        return b.toString();
    }

    /** This process's nice value (field 19 of /proc/self/stat), or 0 where there is none. */
    static int niceness() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            return Integer.parseInt(f[16]); // f[0] is field 3 (state)
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The first three fields of /proc/loadavg, or "n/a" where there is none. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
