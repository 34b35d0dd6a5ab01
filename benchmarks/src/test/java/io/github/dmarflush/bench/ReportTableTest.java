package io.github.dmarflush.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The report reads JMH's JSON layout and computes the ratios and verdicts from it. */
class ReportTableTest {

    private static String metric(double score, String error, String unit) {
        return "{\"score\": " + score + ", \"scoreError\": " + error
                + ", \"scoreConfidence\": [\"NaN\", \"NaN\"], \"scoreUnit\": \"" + unit
                + "\", \"rawData\": [[" + score + "]]}";
    }

    /** A group result as JMH writes it: primary = all calls, secondary per method, counter, gc. */
    private static String group(String bench, String candidate, double produce, double err, double mbs) {
        return "{\"jmhVersion\": \"1.37\", \"benchmark\": \"io.github.dmarflush.bench." + bench
                + "\", \"mode\": \"thrpt\", \"params\": {\"candidate\": \"" + candidate + "\"},"
                + " \"primaryMetric\": " + metric(produce * 10, "1.0", "ops/s") + ","
                + " \"secondaryMetrics\": {\"consume1\": " + metric(produce * 9, "\"NaN\"", "ops/s")
                + ", \"gc.alloc.rate\": " + metric(mbs, "0.0", "MB/sec")
                + ", \"drained\": " + metric(produce, String.valueOf(err), "ops/s")
                + ", \"produce1\": " + metric(produce * 1.01, "\"NaN\"", "ops/s") + "}}";
    }

    private static String alloc(String candidate, double norm) {
        return "{\"benchmark\": \"io.github.dmarflush.bench.AllocationBenchmark.enqueueDrain\","
                + " \"mode\": \"avgt\", \"params\": {\"candidate\": \"" + candidate + "\"},"
                + " \"primaryMetric\": " + metric(50.0, "1.0", "ns/op") + ","
                + " \"secondaryMetrics\": {\"gc.alloc.rate.norm\": " + metric(norm, "0.0", "B/op") + "}}";
    }

    private static String json(String... results) {
        StringJoiner j = new StringJoiner(",\n", "[\n", "\n]\n");
        for (String r : results) {
            j.add(r);
        }
        return j.toString();
    }

    @Test
    void ratiosUseTheDrainedRateNotTheGroupTotal() {
        ReportTable t = new ReportTable(json(
                group("BareQueueBenchmark.oneProducer", "FLUSH_LIST", 30e6, 1e6, 0),
                group("BareQueueBenchmark.oneProducer", "MPSC_LOCKED", 20e6, 1e6, 0),
                group("BareQueueBenchmark.oneProducer", "LOCKED_BASELINE", 10e6, 1e6, 0)), Map.of());
        assertEquals(1.5, t.ratio("BareQueueBenchmark.oneProducer", "FLUSH_LIST", "MPSC_LOCKED"), 1e-9);
        assertEquals(3.0, t.ratio("BareQueueBenchmark.oneProducer", "FLUSH_LIST", "LOCKED_BASELINE"), 1e-9);
        String md = t.markdown();
        assertTrue(md.contains("| FLUSH_LIST | yes | 30.00 | 1.00 | 30.00-30.00 | 1.50x | 3.00x |"), md);
        assertTrue(md.contains("FLUSH_LIST / MPSC_LOCKED = 1.50x, **met**"), md);
        assertTrue(md.contains("3.00x (bare queue, 1 producer + 1 consumer, **met**)"), md);
    }

    @Test
    void targetsNotMetAreReportedAsNotMetWithTheFigure() {
        ReportTable t = new ReportTable(json(
                group("BareQueueBenchmark.oneProducer", "FLUSH_LIST", 19e6, 0.5e6, 0),
                group("BareQueueBenchmark.oneProducer", "MPSC_LOCKED", 20e6, 0.6e6, 0),
                group("BareQueueBenchmark.oneProducer", "LOCKED_BASELINE", 10e6, 1e6, 0),
                alloc("FLUSH_LIST", 8.0)), Map.of());
        String md = t.markdown();
        assertTrue(md.contains("= 0.95x, **not met** (the two 99.9% intervals overlap"), md);
        assertTrue(md.contains("1.90x (bare queue, 1 producer + 1 consumer, **not met**)"), md);
        assertTrue(md.contains("enqueue + drain = 8.000 B/op, **not met**"), md);
    }

    @Test
    void allocationAndBytesPerEntryAndLatencyTables() {
        Histogram h = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i);
        }
        ReportTable t = new ReportTable(json(
                // 2 MB/s at 1 M entries/s = 2.1 B/entry (MB = 2^20 bytes in JMH)
                group("RealisticBenchmark.twoProducers", "MPSC_LOCKED", 1e6, 0.1e6, 2.0),
                alloc("FLUSH_LIST", 0.002)), Map.of("FLUSH_LIST", h));
        String md = t.markdown();
        assertTrue(md.contains("| MPSC_LOCKED | yes | 1.00 | 0.10 | 1.00-1.00 | 1.00x | n/a | 2.1 |"), md);
        assertTrue(md.contains("| FLUSH_LIST | 0.002 | 50.0 |"), md);
        assertTrue(md.contains("= 0.002 B/op, **met**"), md);
        assertTrue(md.contains("| FLUSH_LIST | 500 | 990 | 999 | 1000 | 1000 |"), md);
    }

    /** A group result with one more parameter, as the realistic workload's token profile. */
    private static String withTokens(String result, String tokens) {
        return result.replace("\"params\": {", "\"params\": {\"tokens\": \"" + tokens + "\", ");
    }

    @Test
    void eachParameterSetIsItsOwnWorkloadWithItsOwnRatios() {
        String bench = "RealisticBenchmark.twoProducers";
        ReportTable t = new ReportTable(json(
                withTokens(group(bench, "FLUSH_LIST", 4e6, 0.1e6, 0), "1/2/3/4"),
                withTokens(group(bench, "LOCKED_BASELINE", 2e6, 0.1e6, 0), "1/2/3/4"),
                withTokens(group(bench, "FLUSH_LIST", 3e6, 0.1e6, 0), "5/6/7/8"),
                withTokens(group(bench, "LOCKED_BASELINE", 3e6, 0.1e6, 0), "5/6/7/8")), Map.of());
        assertEquals(List.of(bench + " tokens=1/2/3/4", bench + " tokens=5/6/7/8"), t.throughputWorkloads());
        String md = t.markdown();
        assertTrue(md.contains("2.00x (realistic (docs/DESIGN.md section 7), 2 producers + 1 consumer, "
                + "tokens=1/2/3/4, **met**); 1.00x (realistic (docs/DESIGN.md section 7), 2 producers + 1 consumer, "
                + "tokens=5/6/7/8, **not met**)"), md);
    }

    @Test
    void jsonReaderHandlesJmhValues() {
        Object v = Json.parse("{\"a\": [1, -2.5e3, \"NaN\", true, null, \"x\\\"\\u00e9\"], \"b\": {}}");
        List<Object> a = Json.array(Json.object(v).get("a"));
        assertEquals(1.0, Json.number(a.get(0)));
        assertEquals(-2500.0, Json.number(a.get(1)));
        assertTrue(Double.isNaN(Json.number(a.get(2))));
        assertEquals(Boolean.TRUE, a.get(3));
        assertEquals(null, a.get(4));
        assertEquals("x\"\u00e9", a.get(5));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\": 1,}"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1] 2"));
    }
}
