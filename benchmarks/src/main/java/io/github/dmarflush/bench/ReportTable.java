package io.github.dmarflush.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns JMH's JSON result (and the latency log beside it) into the Markdown tables of the
 * README: throughput per workload with the ratios to JCTools {@code MpscLinkedQueue} (under
 * the unit lock, as the flush list is) and to the locked baseline, latency percentiles,
 * allocation per operation, and the three targets of the benchmark issue, each marked met or
 * not met from the figures.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.dmarflush.bench.ReportTable RESULT.json
 * [LATENCY.tsv]} prints the tables to standard output.
 */
public final class ReportTable {

    /** The throughput workloads, in table order: JMH benchmark name suffix to title. */
    static final Map<String, String> THROUGHPUT_WORKLOADS = new LinkedHashMap<>();

    static {
        THROUGHPUT_WORKLOADS.put("BareQueueBenchmark.oneProducer", "bare queue, 1 producer + 1 consumer");
        THROUGHPUT_WORKLOADS.put("BareQueueBenchmark.twoProducers", "bare queue, 2 producers + 1 consumer");
        THROUGHPUT_WORKLOADS.put("RealisticBenchmark.twoProducers",
                "realistic (docs/DESIGN.md section 7), 2 producers + 1 consumer");
    }

    static final String ALLOCATION = "AllocationBenchmark.enqueueDrain";
    static final String MPSC_REF = Candidate.MPSC_LOCKED.name();
    static final String BASELINE_REF = Candidate.LOCKED_BASELINE.name();
    static final String FLUSH = Candidate.FLUSH_LIST.name();

    /** One benchmark result, the parts the report uses. */
    record Row(String workload, String candidate, Map<String, String> params, double score,
            double error, String unit, double allocNorm, double allocRateMBs, double min, double max) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, Histogram> latency;

    /**
     * @param jmhJson JMH's JSON result (an array of benchmark results)
     * @param latency candidate to enqueue-to-drain histogram (ns); may be empty
     */
    ReportTable(String jmhJson, Map<String, Histogram> latency) {
        this.latency = latency;
        for (Object o : Json.array(Json.parse(jmhJson))) {
            Map<String, Object> r = Json.object(o);
            String bench = (String) r.get("benchmark");
            String workload = bench.substring(bench.lastIndexOf('.', bench.lastIndexOf('.') - 1) + 1);
            Map<String, String> params = new LinkedHashMap<>();
            if (r.get("params") != null) {
                Json.object(r.get("params")).forEach((k, v) -> params.put(k, String.valueOf(v)));
            }
            // Parameters other than the candidate make separate workloads (tables).
            for (Map.Entry<String, String> p : params.entrySet()) {
                if (!p.getKey().equals("candidate")) {
                    workload += " " + p.getKey() + "=" + p.getValue();
                }
            }
            Map<String, Object> secondary = r.get("secondaryMetrics") == null
                    ? Map.of() : Json.object(r.get("secondaryMetrics"));
            Map<String, Object> metric = Json.object(r.get("primaryMetric"));
            // A group's primary score adds up every method's calls; the figure is the
            // consumer's count of entries drained per second (the Drained counter), or the
            // producers' enqueue rate in a result that has no such counter.
            for (Map.Entry<String, Object> m : secondary.entrySet()) {
                if (m.getKey().startsWith("produce") && !secondary.containsKey("drained")) {
                    metric = Json.object(m.getValue());
                }
            }
            if (secondary.containsKey("drained")) {
                metric = Json.object(secondary.get("drained"));
            }
            double min = Double.NaN;
            double max = Double.NaN;
            if (metric.get("rawData") != null) {
                for (Object fork : Json.array(metric.get("rawData"))) {
                    for (Object it : Json.array(fork)) {
                        double v = Json.number(it);
                        min = Double.isNaN(min) ? v : Math.min(min, v);
                        max = Double.isNaN(max) ? v : Math.max(max, v);
                    }
                }
            }
            rows.add(new Row(workload, params.getOrDefault("candidate", "?"), params,
                    Json.number(metric.get("score")), errorOf(metric),
                    (String) metric.get("scoreUnit"),
                    secondaryScore(secondary, "gc.alloc.rate.norm"),
                    secondaryScore(secondary, "gc.alloc.rate"), min, max));
        }
    }

    private static double errorOf(Map<String, Object> metric) {
        Object e = metric.get("scoreError");
        double v = e == null ? Double.NaN : Json.number(e);
        return Double.isFinite(v) ? v : Double.NaN;
    }

    private static double secondaryScore(Map<String, Object> secondary, String suffix) {
        for (Map.Entry<String, Object> m : secondary.entrySet()) {
            String k = m.getKey();
            if (k.equals(suffix) || k.endsWith("·" + suffix)) {
                return Json.number(Json.object(m.getValue()).get("score"));
            }
        }
        return Double.NaN;
    }

    /**
     * @param args RESULT.json [LATENCY.tsv]
     * @throws IOException if a file cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: ReportTable RESULT.json [LATENCY.tsv]");
            System.exit(2);
        }
        String json = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        Map<String, Histogram> lat = args.length == 2 ? LatencyLog.read(Path.of(args[1])) : Map.of();
        System.out.print(new ReportTable(json, lat).markdown());
    }

    /** The throughput workloads present, known benchmarks first in table order, then by parameters. */
    List<String> throughputWorkloads() {
        List<String> out = new ArrayList<>();
        for (String bench : THROUGHPUT_WORKLOADS.keySet()) {
            for (Row r : rows) {
                boolean match = r.workload.equals(bench) || r.workload.startsWith(bench + " ");
                if (match && !out.contains(r.workload)) {
                    out.add(r.workload);
                }
            }
        }
        return out;
    }

    /** The table title of a workload key: the benchmark's description, then its parameters. */
    static String title(String workload) {
        int sp = workload.indexOf(' ');
        String bench = sp < 0 ? workload : workload.substring(0, sp);
        String t = THROUGHPUT_WORKLOADS.getOrDefault(bench, bench);
        return sp < 0 ? t : t + ", " + workload.substring(sp + 1);
    }

    Row find(String workload, String candidate) {
        for (Row r : rows) {
            if (r.workload.equals(workload) && r.candidate.equals(candidate)) {
                return r;
            }
        }
        return null;
    }

    /** Ratio of two rows' scores, NaN when either is missing. */
    double ratio(String workload, String candidate, String reference) {
        Row a = find(workload, candidate);
        Row b = find(workload, reference);
        return a == null || b == null ? Double.NaN : a.score / b.score;
    }

    private static String f(String fmt, Object... args) {
        return String.format(Locale.ROOT, fmt, args);
    }

    private static String ratioCell(double r) {
        return Double.isNaN(r) ? "n/a" : f("%.2fx", r);
    }

    /** @return the tables and the targets, Markdown */
    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("#### Throughput: entries per second through the queue (drained by the consumer), "
                + "mean ± 99.9% CI over the measurement iterations\n\n");
        for (String w : throughputWorkloads()) {
            List<Row> ws = new ArrayList<>();
            for (Row r : rows) {
                if (r.workload.equals(w)) {
                    ws.add(r);
                }
            }
            md.append("**").append(title(w)).append("**\n\n");
            md.append("| candidate | producers hold unit lock | Mops/s | ± | iterations min-max | vs MPSC_LOCKED | vs LOCKED_BASELINE | B/entry (approx.) |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
            for (Row r : ws) {
                Candidate c = Candidate.valueOf(r.candidate);
                double bytesPerEntry = r.allocRateMBs * 1024 * 1024 / r.score;
                md.append(f("| %s | %s | %.2f | %.2f | %.2f-%.2f | %s | %s | %s |\n", r.candidate,
                        c.producersHoldUnitLock ? "yes" : "no", r.score / 1e6, r.error / 1e6,
                        r.min / 1e6, r.max / 1e6,
                        ratioCell(ratio(w, r.candidate, MPSC_REF)),
                        ratioCell(ratio(w, r.candidate, BASELINE_REF)),
                        Double.isNaN(bytesPerEntry) ? "n/a" : f("%.1f", bytesPerEntry)));
            }
            md.append('\n');
        }
        if (!latency.isEmpty()) {
            md.append("#### Enqueue-to-drain latency, 1 paced producer + 1 spinning consumer (ns)\n\n");
            md.append("| candidate | p50 | p99 | p99.9 | max | samples |\n");
            md.append("|---|---:|---:|---:|---:|---:|\n");
            for (Map.Entry<String, Histogram> e : latency.entrySet()) {
                Histogram h = e.getValue();
                md.append(f("| %s | %d | %d | %d | %d | %d |\n", e.getKey(),
                        h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                        h.getValueAtPercentile(99.9), h.getMaxValue(), h.getTotalCount()));
            }
            md.append('\n');
        }
        List<Row> alloc = new ArrayList<>();
        for (Row r : rows) {
            if (r.workload.equals(ALLOCATION)) {
                alloc.add(r);
            }
        }
        if (!alloc.isEmpty()) {
            md.append("#### Allocation: one thread, enqueue + drain of one entry per operation "
                    + "(JMH `-prof gc`, `gc.alloc.rate.norm`)\n\n");
            md.append("| candidate | B/op | ns/op |\n");
            md.append("|---|---:|---:|\n");
            for (Row r : alloc) {
                md.append(f("| %s | %.3f | %.1f |\n", r.candidate, r.allocNorm, r.score));
            }
            md.append('\n');
        }
        md.append(targets());
        return md.toString();
    }

    /** The three targets, each with its measured figure. */
    String targets() {
        StringBuilder md = new StringBuilder("#### Targets\n\n");
        String bare1 = "BareQueueBenchmark.oneProducer";
        double t1 = ratio(bare1, FLUSH, MPSC_REF);
        md.append(f("1. Flush list throughput at least that of JCTools `MpscLinkedQueue` with one producer "
                + "under a lock: FLUSH_LIST / MPSC_LOCKED = %s, %s.\n", ratioCell(t1),
                verdict(t1 >= 1.0, t1) + overlapNote(bare1, FLUSH, MPSC_REF)));
        md.append("2. Flush list throughput at least 2x the locked baseline with producers and consumer "
                + "running concurrently: FLUSH_LIST / LOCKED_BASELINE =");
        String sep = " ";
        for (String w : throughputWorkloads()) {
            double t2 = ratio(w, FLUSH, BASELINE_REF);
            md.append(sep).append(f("%s (%s, %s)", ratioCell(t2), title(w), verdict(t2 >= 2.0, t2)));
            sep = "; ";
        }
        md.append(".\n");
        Row a = find(ALLOCATION, FLUSH);
        double b = a == null ? Double.NaN : a.allocNorm;
        md.append(f("3. 0 B/op on the flush list paths: FLUSH_LIST enqueue + drain = %s B/op, %s.\n",
                Double.isNaN(b) ? "n/a" : f("%.3f", b),
                verdict(b < 0.5, b) + (Double.isNaN(b) ? "" : " (below 0.5 B/op counts as 0: JMH's own"
                        + " bookkeeping allocates a few bytes per iteration, spread over millions of ops)")));
        md.append('\n');
        return md.toString();
    }

    private static String verdict(boolean met, double v) {
        return Double.isNaN(v) ? "not measured" : met ? "**met**" : "**not met**";
    }

    /** Says so when the two 99.9% confidence intervals overlap. */
    private String overlapNote(String workload, String a, String b) {
        Row x = find(workload, a);
        Row y = find(workload, b);
        if (x == null || y == null || Double.isNaN(x.error) || Double.isNaN(y.error)) {
            return "";
        }
        boolean overlap = Math.abs(x.score - y.score) <= x.error + y.error;
        return overlap ? " (the two 99.9% intervals overlap: not a significant difference)" : "";
    }
}
