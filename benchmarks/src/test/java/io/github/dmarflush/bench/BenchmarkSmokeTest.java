package io.github.dmarflush.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The smoke run that keeps the benchmarks from rotting: every benchmark, every candidate,
 * no warmup, one 100 ms iteration. It fails if any benchmark throws (a candidate
 * that breaks FIFO, a flush list that rejects an enqueue, a setup error) or moves no entry.
 * Its figures are not measurements (the code is barely compiled in 100 ms).
 */
class BenchmarkSmokeTest {

    private static final String PKG = "io.github.dmarflush.bench.";

    /** Every (benchmark, candidate) pair the module declares. */
    private static Set<String> expectedRuns() {
        Set<String> s = new TreeSet<>();
        for (Candidate c : Candidate.values()) {
            s.add("BareQueueBenchmark.oneProducer " + c);
            if (c.multiProducer) {
                s.add("BareQueueBenchmark.twoProducers " + c);
            }
            if (c.producersHoldUnitLock) {
                s.add("RealisticBenchmark.twoProducers " + c + " 40/120/100/60");
                s.add("RealisticBenchmark.twoProducers " + c + " 40/0/300/60");
            }
            s.add("LatencyBenchmark.paced " + c);
            s.add("AllocationBenchmark.enqueueDrain " + c);
        }
        return s;
    }

    /**
     * In this JVM ({@code forks(0)}): with one fork each, the 45 runs the module had then took
     * 136 s on the shared two-CPU machine, most of it JVM start-up; in this JVM about 15 s. The forked path (class path, benchmark list,
     * system properties) is covered by the negative tests below, which fork.
     */
    @Test
    @SuppressWarnings("rawtypes") // JMH's getSecondaryResults() is a Map<String, Result>
    void everyBenchmarkRunsOneShortIterationAndMovesEntries(@TempDir Path dir) throws Exception {
        Path latency = dir.resolve("latency.tsv");
        System.setProperty(LatencyLog.PROPERTY, latency.toString());
        Options o = ShortProfile.smoke(ShortProfile.options(ShortProfile.ALL, latency)).forks(0).build();
        Collection<RunResult> results;
        try {
            results = new Runner(o).run();
        } finally {
            System.clearProperty(LatencyLog.PROPERTY);
        }

        Set<String> seen = new TreeSet<>();
        for (RunResult r : results) {
            String bench = r.getParams().getBenchmark().substring(PKG.length());
            String candidate = r.getParams().getParam("candidate");
            String tokens = r.getParams().getParam("tokens");
            seen.add(bench + " " + candidate + (tokens == null ? "" : " " + tokens));
            Map<String, Result> secondary = r.getSecondaryResults();
            double moved = bench.startsWith("AllocationBenchmark")
                    ? r.getPrimaryResult().getScore() // ns per enqueue + drain; NaN if none ran
                    : secondary.get("drained").getScore(); // entries/s the consumer dequeued
            assertTrue(moved > 0, bench + " " + candidate + " moved no entry: " + moved);
        }
        assertEquals(expectedRuns(), seen);
        // Every latency trial wrote its histogram, with samples.
        var hist = LatencyLog.read(latency);
        assertEquals(Candidate.values().length, hist.size());
        hist.forEach((c, h) -> assertTrue(h.getTotalCount() > 0, c + " recorded no latency"));
    }

    /**
     * The smoke run must fail when a benchmark throws. Two deliberately broken harnesses,
     * each triggered by the 64th entry, so that even a fork that gets little CPU reaches it:
     * a pool that hands out an entry still on the flush list (the list must reject it with
     * {@code EntryStillLinkedException}), and a producer that skips an order number, as if
     * an entry were lost (the consumer's FIFO check must throw).
     */
    @ParameterizedTest
    @CsvSource({
        "FLUSH_LIST, reissue, EntryStillLinkedException",
        "MPSC_LOCKED, skip, FIFO broken",
    })
    void aBenchmarkThatThrowsFailsTheRun(String candidate, String fault, String expected,
            @TempDir Path dir) throws IOException {
        Path log = dir.resolve("jmh.log");
        Options o = ShortProfile.smoke(ShortProfile.options(
                        "BareQueueBenchmark\\.oneProducer", null, "-Dflushbench.fault=" + fault))
                .measurementTime(TimeValue.seconds(1))
                .param("candidate", candidate)
                .output(log.toString())
                .build();
        assertThrows(RunnerException.class, () -> new Runner(o).run());
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(out.contains(expected), "expected '" + expected + "' in the JMH log:\n" + out);
    }
}
