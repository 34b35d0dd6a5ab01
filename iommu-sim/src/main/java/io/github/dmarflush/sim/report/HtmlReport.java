package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.RunResult;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * A self-contained HTML report of an invocation's runs: bar charts of throughput and of
 * {@code dmarhw} spin and block events per run, the distribution of lock wait times per lock
 * (from the HdrHistograms the instrumented mutexes keep), and each run's text report. Charts
 * are inline SVG: no script, no style sheet or font from elsewhere, so the file opens
 * offline and can be mailed as it is.
 */
public final class HtmlReport {

    private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};
    /** Wait-time buckets: powers of two from 2^7 ns (128 ns) to 2^30 ns (about 1 s). */
    private static final int FIRST_BUCKET = 7;
    private static final int LAST_BUCKET = 30;

    private HtmlReport() {
    }

    /**
     * @param runs the runs, in the order they ran
     * @param command the command line
     * @param machineLoad a line describing the host's load (e.g. from {@code /proc/loadavg}), or null
     * @return the HTML document
     */
    public static String format(List<RunResult> runs, String command, String machineLoad) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
                .append("<title>iommu-sim report</title>\n<style>\n")
                .append("body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}")
                .append("pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}")
                .append("h2{border-bottom:1px solid #ccc;padding-bottom:.2em}")
                .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}")
                .append("th{background:#eee}td.l{text-align:left}.bad{color:#b00;font-weight:bold}")
                .append("\n</style></head><body>\n");
        h.append("<h1>iommu-sim report</h1>\n<p><code>").append(esc(command)).append("</code>");
        if (!runs.stream().allMatch(r -> r.clock().virtual())) {
            // a real-thread run's figures belong to when and where it ran; a virtual one's do not
            h.append("<br>").append(esc(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)));
        }
        if (machineLoad != null) {
            h.append("<br>host load: ").append(esc(machineLoad));
        }
        h.append("</p>\n");

        h.append("<h2>Summary</h2>\n<table><tr><th>workload</th><th>run</th><th>clock</th><th>Mbit/s</th><th>ops/s</th>")
                .append("<th>dmarhw spin/s</th><th>dmarhw block/s</th><th>IOTLB inv/s</th><th>wait descr/s</th>")
                .append("<th>interrupts/s</th><th>queue full</th><th>checks</th></tr>\n");
        for (RunResult r : runs) {
            double s = r.seconds();
            h.append(String.format(Locale.ROOT,
                    "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%.1f</td><td>%.0f</td><td>%.0f</td>"
                            + "<td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%d</td><td%s>%s</td></tr>%n",
                    esc(r.workload()), esc(r.label()), esc(clockLabel(r)), r.mbitPerSecond(), r.opsPerSecond(),
                    r.spinEventsPerSecond("dmarhw"), r.blockEventsPerSecond("dmarhw"), r.qi().iotlbDescriptors() / s,
                    r.qi().waitDescriptors() / s, r.qi().interrupts() / s, r.qi().queueFull(),
                    r.clean() ? "" : " class=\"bad\"", r.clean() ? "passed" : "FAILED"));
        }
        h.append("</table>\n");

        List<Integer> cpuCounts = runs.stream().filter(r -> r.clock().virtual()).map(r -> r.clock().cpus())
                .distinct().toList();
        if (cpuCounts.size() > 1) {
            sweepCharts(h, runs, cpuCounts);
        }

        List<String> labels = new ArrayList<>();
        List<Double> tput = new ArrayList<>();
        List<Double> spin = new ArrayList<>();
        List<Double> block = new ArrayList<>();
        for (RunResult r : runs) {
            labels.add(r.label() + (runs.stream().map(RunResult::workload).distinct().count() > 1
                    ? " (" + r.workload() + ")" : "") + (cpuCounts.size() > 1 ? " " + r.clock().cpus() : ""));
            tput.add(r.mbitPerSecond());
            spin.add(r.spinEventsPerSecond("dmarhw"));
            block.add(r.blockEventsPerSecond("dmarhw"));
        }
        h.append("<h2>Throughput per strategy</h2>\n");
        h.append(barChart(labels, List.of(tput), List.of("Mbit/s of simulated DMA"), "Mbit/s"));
        h.append("<h2>dmarhw contention per strategy</h2>\n");
        h.append(barChart(labels, List.of(spin, block), List.of("adaptive spin events/s", "adaptive block events/s"),
                "events/s"));

        for (String lock : List.of("dmarhw", "iodom")) {
            h.append("<h2>").append(lock).append(" wait distribution</h2>\n<p>Events per wait-time bucket "
                    + "(spin and block together), all call sites; log scale on both axes.</p>\n");
            List<long[]> series = new ArrayList<>();
            for (RunResult r : runs) {
                series.add(buckets(r, lock));
            }
            h.append(distributionChart(labels, series));
        }

        for (RunResult r : runs) {
            h.append("<h2>").append(esc(r.workload())).append(", ").append(esc(r.label())).append("</h2>\n<pre>")
                    .append(esc(RunReport.format(r))).append("</pre>\n");
        }
        h.append("</body></html>\n");
        return h.toString();
    }

    private static String clockLabel(RunResult r) {
        return r.clock().virtual() ? "virtual, " + r.clock().cpus() + " CPUs, " + r.clock().streams() + " streams"
                : "real threads";
    }

    /** The CPU sweep: contention and throughput against simulated CPUs, one line per strategy. */
    private static void sweepCharts(StringBuilder h, List<RunResult> runs, List<Integer> cpuCounts) {
        List<String> strategies = runs.stream().map(RunResult::label).distinct().toList();
        List<String> x = cpuCounts.stream().map(String::valueOf).toList();
        List<List<Double>> spin = new ArrayList<>();
        List<List<Double>> block = new ArrayList<>();
        List<List<Double>> tput = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String st : strategies) {
            List<Double> sp = new ArrayList<>();
            List<Double> bl = new ArrayList<>();
            List<Double> tp = new ArrayList<>();
            for (int n : cpuCounts) {
                RunResult r = runs.stream().filter(q -> q.label().equals(st) && q.clock().cpus() == n).findFirst()
                        .orElse(null);
                sp.add(r == null ? Double.NaN : r.spinEventsPerSecond("dmarhw") + r.spinEventsPerSecond("iodom"));
                bl.add(r == null ? Double.NaN : r.blockEventsPerSecond("dmarhw") + r.blockEventsPerSecond("iodom"));
                tp.add(r == null ? Double.NaN : r.mbitPerSecond());
            }
            spin.add(sp);
            block.add(bl);
            tput.add(tp);
            names.add(st);
        }
        h.append("<h2>Contention against simulated CPUs</h2>\n<p>Adaptive-mutex spin events per second, "
                + "dmarhw and iodom together, one line per strategy (virtual time; one receive stream per CPU unless "
                + "--streams says otherwise).</p>\n");
        h.append(lineChart(x, spin, names, "spin events/s"));
        h.append("<h2>Blocking against simulated CPUs</h2>\n");
        h.append(lineChart(x, block, names, "block events/s"));
        h.append("<h2>Throughput against simulated CPUs</h2>\n");
        h.append(lineChart(x, tput, names, "Mbit/s of simulated DMA"));
    }

    private static String lineChart(List<String> xLabels, List<List<Double>> series, List<String> names, String unit) {
        int w = 760;
        int h = 280;
        int left = 80;
        int bottom = 40;
        int top = 30;
        double max = 0;
        for (List<Double> s : series) {
            for (double v : s) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        max = niceMax(max);
        StringBuilder sb = new StringBuilder();
        sb.append(svgOpen(w, h));
        axis(sb, w, h, left, bottom, top, max, unit, false);
        int n = xLabels.size();
        double step = (w - left - 40.0) / Math.max(1, n - 1);
        for (int i = 0; i < n; i++) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + 10 + i * step, h - bottom + 16, esc(xLabels.get(i))));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">simulated CPUs</text>%n",
                (w + left) / 2, h - 6));
        for (int k = 0; k < series.size(); k++) {
            StringBuilder pts = new StringBuilder();
            List<Double> s = series.get(k);
            for (int i = 0; i < n; i++) {
                double v = s.get(i);
                if (Double.isNaN(v)) {
                    continue;
                }
                double px = left + 10 + i * step;
                double py = h - bottom - (h - bottom - top) * v / max;
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                sb.append(String.format(Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s, %s CPUs: %.1f</title></circle>%n",
                        px, py, COLORS[k % COLORS.length], esc(names.get(k)), esc(xLabels.get(i)), v));
            }
            sb.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                    pts.toString().strip(), COLORS[k % COLORS.length]));
        }
        legend(sb, names, left + 10, 14);
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** Counts of events per power-of-two bucket of wait time for one lock, all callers. */
    static long[] buckets(RunResult r, String lock) {
        long[] b = new long[LAST_BUCKET - FIRST_BUCKET + 1];
        for (LockSiteSample s : r.locks()) {
            if (!s.lock().equals(lock)) {
                continue;
            }
            for (Histogram hist : List.of(s.spinHistogram(), s.blockHistogram())) {
                hist.recordedValues().forEach(v -> {
                    long ns = v.getValueIteratedTo();
                    int k = ns <= 0 ? 0 : 63 - Long.numberOfLeadingZeros(ns);
                    k = Math.max(FIRST_BUCKET, Math.min(LAST_BUCKET, k));
                    b[k - FIRST_BUCKET] += v.getCountAtValueIteratedTo();
                });
            }
        }
        return b;
    }

    private static String barChart(List<String> labels, List<List<Double>> series, List<String> names, String unit) {
        int w = 760;
        int h = 260;
        int left = 80;
        int bottom = 40;
        int top = 30;
        double max = 0;
        for (List<Double> s : series) {
            for (double v : s) {
                max = Math.max(max, v);
            }
        }
        max = niceMax(max);
        StringBuilder sb = new StringBuilder();
        sb.append(svgOpen(w, h));
        axis(sb, w, h, left, bottom, top, max, unit, false);
        int groups = labels.size();
        double gw = (w - left - 20.0) / Math.max(1, groups);
        double bw = gw * 0.7 / series.size();
        for (int g = 0; g < groups; g++) {
            double gx = left + g * gw + gw * 0.15;
            for (int k = 0; k < series.size(); k++) {
                double v = series.get(k).get(g);
                double bh = max == 0 ? 0 : (h - bottom - top) * v / max;
                double x = gx + k * bw;
                sb.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %.1f</title></rect>%n",
                        x, h - bottom - bh, bw - 2, bh, COLORS[k % COLORS.length], esc(labels.get(g)), esc(names.get(k)), v));
                sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%s</text>%n",
                        x + bw / 2, h - bottom - bh - 3, compact(v)));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + g * gw + gw / 2, h - bottom + 16, esc(labels.get(g))));
        }
        legend(sb, names, left + 10, 14);
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static String distributionChart(List<String> labels, List<long[]> series) {
        int w = 760;
        int h = 280;
        int left = 80;
        int bottom = 50;
        int top = 30;
        long max = 1;
        for (long[] s : series) {
            for (long v : s) {
                max = Math.max(max, v);
            }
        }
        double logMax = Math.ceil(Math.log10(max));
        if (logMax < 1) {
            logMax = 1;
        }
        int nb = LAST_BUCKET - FIRST_BUCKET + 1;
        double cw = (w - left - 20.0) / nb;
        StringBuilder sb = new StringBuilder();
        sb.append(svgOpen(w, h));
        double plotH = h - bottom - top;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>%n",
                left, h - bottom, w - 20, h - bottom));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>%n",
                left, top, left, h - bottom));
        for (int d = 0; d <= (int) logMax; d++) {
            double y = h - bottom - plotH * d / logMax;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>%n", left, y, w - 20, y, left - 5, y + 4, d));
        }
        for (int k = 0; k < nb; k += 3) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>%n",
                    left + k * cw + cw / 2, h - bottom + 14, nanos(1L << (k + FIRST_BUCKET))));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">wait time (bucket lower bound)</text>%n",
                (w + left) / 2, h - 8));
        double bw = cw * 0.8 / series.size();
        for (int s = 0; s < series.size(); s++) {
            long[] b = series.get(s);
            for (int k = 0; k < nb; k++) {
                if (b[k] == 0) {
                    continue;
                }
                double bh = plotH * Math.log10(b[k] + 1) / logMax;
                double x = left + k * cw + cw * 0.1 + s * bw;
                sb.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s, %s..: %d events</title></rect>%n",
                        x, h - bottom - bh, Math.max(1, bw - 1), bh, COLORS[s % COLORS.length], esc(labels.get(s)),
                        nanos(1L << (k + FIRST_BUCKET)), b[k]));
            }
        }
        legend(sb, labels, left + 10, 14);
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static String svgOpen(int w, int h) {
        return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-size=\"12\" font-family=\"sans-serif\">%n", w, h);
    }

    private static void axis(StringBuilder sb, int w, int h, int left, int bottom, int top, double max, String unit,
            boolean log) {
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>%n",
                left, h - bottom, w - 20, h - bottom));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>%n",
                left, top, left, h - bottom));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double y = h - bottom - (h - bottom - top) * i / 4.0;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left, y, w - 20, y, left - 5, y + 4, compact(v)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>%n",
                (h - bottom + top) / 2, (h - bottom + top) / 2, esc(unit)));
    }

    private static void legend(StringBuilder sb, List<String> names, int x, int y) {
        int cx = x;
        for (int k = 0; k < names.size(); k++) {
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", cx, y - 9, COLORS[k % COLORS.length], cx + 14, y, esc(names.get(k))));
            cx += 24 + 7 * names.get(k).length();
        }
    }

    private static double niceMax(double max) {
        if (max <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(max)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= max) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String compact(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (v >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return String.format(Locale.ROOT, v >= 100 || v == Math.rint(v) ? "%.0f" : "%.1f", v);
    }

    private static String nanos(long ns) {
        if (ns >= 1_000_000_000L) {
            return (ns / 1_000_000_000L) + "s";
        }
        if (ns >= 1_000_000) {
            return (ns / 1_000_000) + "ms";
        }
        if (ns >= 1000) {
            return (ns / 1000) + "\u00b5s";
        }
        return ns + "ns";
    }

    /**
     * @param s text
     * @return {@code s} with HTML's special characters escaped
     */
    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
