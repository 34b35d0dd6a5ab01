package io.github.dmarflush.sim.report;

import io.github.dmarflush.sim.repro.FreeBsdReference;
import io.github.dmarflush.sim.repro.ModelState;
import io.github.dmarflush.sim.repro.Observables;
import io.github.dmarflush.sim.repro.Reproduction;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.RunResult;
import java.util.Locale;
import java.util.Map;

/** The text and JSON reports of {@code iommu-sim reproduce}. */
public final class ReproductionReport {

    private ReproductionReport() {
    }

    /**
     * @param rep a reproduction that has run
     * @return the text report, lines ending in {@code \n}
     */
    public static String format(Reproduction rep) {
        StringBuilder sb = new StringBuilder();
        ModelState.Setup su = rep.setup();
        sb.append(String.format(Locale.ROOT, "FreeBSD's netperf -t TCP_MAERTS lockstat runs (ix, 10 GbE) beside the model "
                + "in virtual time%nmodel: one stream, %d simulated CPUs (assumed), warm-up %.3f s, window %.3f s, seed %d, "
                + "cost model %s%nthroughput: netperf's (packets x TCP payload); FreeBSD's figures were taken under lockstat%n%n",
                su.cpus(), su.warmup().toNanos() / 1e9, su.window().toNanos() / 1e9, su.seed(), rep.costs().name()));
        Map<ModelState, RunResult> results = rep.results();
        for (ModelState s : ModelState.values()) {
            RunResult r = results.get(s);
            if (r == null) {
                continue;
            }
            FreeBsdReference.State f = rep.reference().state(s.name());
            sb.append(String.format(Locale.ROOT, "== State %s: %s ==%n", s, f.description()));
            sb.append(String.format(Locale.ROOT, "model: %s flush list%s%n", s.strategy().cliName(),
                    s.busdmaUnderIodom() ? ", busdma map lists under iodom" : ""));
            sb.append(String.format(Locale.ROOT, "%-44s %12s %12s %8s%n", "", "FreeBSD", "model", "model/FreeBSD"));
            double mbps = Observables.netperfMbps(r, rep.costs());
            line(sb, "throughput, Mbit/s", f.mbitPerSecond(), mbps, "%.2f");
            line(sb, "adaptive spin events/s", f.spinPerSecond(), Reproduction.spinPerSecond(r), "%.0f");
            line(sb, "adaptive block events/s", f.blockPerSecond(), Reproduction.blockPerSecond(r), "%.0f");
            if (!f.rows().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "%n%-6s %-40s %9s %6s %9s %6s %6s %6s  %s%n", "Lock", "Caller (FreeBSD)",
                        "events/s", "nsec", "events/s", "nsec", "rate", "nsec", "model site"));
                for (FreeBsdReference.Row row : f.rows()) {
                    if (!row.spin()) {
                        continue;
                    }
                    double fr = f.perSecond(row);
                    if (row.modelSite() == null) {
                        sb.append(String.format(Locale.ROOT, "%-6s %-40s %9.0f %6d %9s %6s %6s %6s  %s%n", row.lock(),
                                row.caller(), fr, row.nsec(), "-", "-", "-", "-", "(not modelled)"));
                        continue;
                    }
                    LockSiteSample m = Observables.find(r, row.lock(), row.modelSite());
                    long ev = m == null ? 0 : m.spinEvents();
                    double mr = ev / r.seconds();
                    double mn = ev == 0 ? 0 : (double) m.spinNanos() / ev;
                    sb.append(String.format(Locale.ROOT, "%-6s %-40s %9.0f %6d %9.0f %6.0f %6.2f %6.2f  %s%n", row.lock(),
                            row.caller(), fr, row.nsec(), mr, mn, mr / fr, mn / row.nsec(), row.modelSite()));
                }
                sb.append("(spin rows; the model's rows under FreeBSD's callers, then the model's own tables)\n");
            } else {
                sb.append("(FreeBSD's per-caller rows of this state are not published: the model's are a prediction)\n");
            }
            sb.append('\n');
            sb.append(LockstatTable.format(LockstatTable.Kind.SPIN, r.locks(), r.seconds())).append('\n');
            sb.append(LockstatTable.format(LockstatTable.Kind.BLOCK, r.locks(), r.seconds())).append('\n');
            sb.append(String.format(Locale.ROOT, "end-of-run checks: %s%n", r.clean() ? "passed" : "FAILED"));
            for (String p : r.problems()) {
                sb.append("  FAILED: ").append(p).append('\n');
            }
            for (String n : r.notes()) {
                sb.append("  note: ").append(n).append('\n');
            }
            sb.append('\n');
        }
        sb.append("== Summary: FreeBSD's figure, the model's, model/FreeBSD ==\n");
        for (Reproduction.Headline h : rep.headlines()) {
            sb.append(String.format(Locale.ROOT, "%-38s %12.2f %12.2f %8.3f%n", h.name(), h.freebsd(), h.model(),
                    h.ratio()));
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String name, double f, double m, String fmt) {
        sb.append(String.format(Locale.ROOT, "%-44s %12s %12s %8s%n", name, String.format(Locale.ROOT, fmt, f),
                String.format(Locale.ROOT, fmt, m), f == 0 ? "-" : String.format(Locale.ROOT, "%.3f", m / f)));
    }

    /**
     * @param rep a reproduction that has run
     * @param command the command line
     * @return the JSON document, one line
     */
    public static String json(Reproduction rep, String command) {
        Json j = new Json().beginObject();
        j.field("tool", "iommu-sim").field("command", command).field("report", "reproduce");
        ModelState.Setup su = rep.setup();
        j.name("model").beginObject().field("cpus", su.cpus()).field("streams", 1)
                .field("warmupSeconds", su.warmup().toNanos() / 1e9).field("windowSeconds", su.window().toNanos() / 1e9)
                .field("seed", su.seed()).field("costModel", rep.costs().name()).endObject();
        j.name("states").beginArray();
        Map<ModelState, RunResult> results = rep.results();
        for (ModelState s : ModelState.values()) {
            RunResult r = results.get(s);
            if (r == null) {
                continue;
            }
            FreeBsdReference.State f = rep.reference().state(s.name());
            j.beginObject().field("state", s.name()).field("description", f.description())
                    .field("strategy", s.strategy().cliName()).field("busdmaUnderIodom", s.busdmaUnderIodom());
            j.name("freebsd").beginObject().field("mbitPerSecond", f.mbitPerSecond())
                    .field("spinPerSecond", f.spinPerSecond()).field("blockPerSecond", f.blockPerSecond()).endObject();
            j.name("model").beginObject().field("mbitPerSecond", Observables.netperfMbps(r, rep.costs()))
                    .field("packetsPerSecond", r.opsPerSecond())
                    .field("spinPerSecond", Reproduction.spinPerSecond(r))
                    .field("blockPerSecond", Reproduction.blockPerSecond(r)).field("clean", r.clean()).endObject();
            j.name("rows").beginArray();
            for (FreeBsdReference.Row row : f.rows()) {
                j.beginObject().field("table", row.spin() ? "spin" : "block").field("lock", row.lock())
                        .field("caller", row.caller()).field("freebsdPerSecond", f.perSecond(row))
                        .field("freebsdNsec", row.nsec());
                if (row.modelSite() != null) {
                    LockSiteSample m = Observables.find(r, row.lock(), row.modelSite());
                    long ev = m == null ? 0 : (row.spin() ? m.spinEvents() : m.blockEvents());
                    long ns = m == null ? 0 : (row.spin() ? m.spinNanos() : m.blockNanos());
                    j.field("modelSite", row.modelSite()).field("modelPerSecond", ev / r.seconds())
                            .field("modelNsec", ev == 0 ? 0 : (double) ns / ev);
                }
                j.endObject();
            }
            j.endArray();
            j.name("modelLocks").beginArray();
            for (LockSiteSample l : r.locks()) {
                j.beginObject().field("lock", l.lock()).field("caller", l.caller())
                        .field("acquisitions", l.acquisitions()).field("spinEvents", l.spinEvents())
                        .field("spinNanosTotal", l.spinNanos()).field("blockEvents", l.blockEvents())
                        .field("blockNanosTotal", l.blockNanos()).endObject();
            }
            j.endArray().endObject();
        }
        j.endArray();
        j.name("headlines").beginArray();
        for (Reproduction.Headline h : rep.headlines()) {
            j.beginObject().field("name", h.name()).field("freebsd", h.freebsd()).field("model", h.model())
                    .field("ratio", h.ratio()).endObject();
        }
        j.endArray();
        return j.endObject().toString();
    }
}
