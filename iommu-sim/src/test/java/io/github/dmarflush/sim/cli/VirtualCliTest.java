package io.github.dmarflush.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The command line of the virtual-time clock: runs, sweeps, {@code reproduce}, {@code calibrate}. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VirtualCliTest {

    private StringWriter out = new StringWriter();
    private StringWriter err = new StringWriter();

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cl = IommuSim.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--clock real --cpus 4|--cpus is for --clock virtual",
        "--clock real --streams 2|--streams is for --clock virtual",
        "--clock real --costs x.costs|--costs is for --clock virtual",
        "-t 4|--threads is for --clock real; in virtual time use --cpus and --streams",
        "-w tcp_stream|--clock virtual runs --workload tcp_maerts (the other workloads run on host threads)",
        "--clock virtual --cpus 0|--cpus must be 1..256, got 0",
        "--clock virtual --cpus 2,2|--cpus lists a CPU count twice: [2, 2]",
        "--clock virtual --cpus 300|--cpus must be 1..256, got 300",
        "--clock virtual --streams 0|--streams must be 1..256, got 0",
        "--clock virtual -t 4|--threads is for --clock real; in virtual time use --cpus and --streams",
        "--clock virtual --spin 100|--spin is for --clock real; in virtual time the times come from the cost model",
        "--clock virtual --mmio 0|--mmio is for --clock real",
        "--clock virtual -w dd|--clock virtual runs --workload tcp_maerts",
        "--clock virtual --strategy strict|strict invalidation is not modelled in virtual time",
        "--clock virtual --costs /nonexistent/x.costs|/nonexistent/x.costs: no such file",
        "--clock sundial|Invalid value for option '--clock'",
        "reproduce --cpus 1|--cpus must be 2..256",
        "reproduce --states B,B|--states lists a state twice",
        "reproduce --states D|Invalid value for option '--states'",
        "reproduce --duration 0s|--duration must be more than 0",
        "calibrate --evaluations 5|--evaluations must be 10..100000, got 5",
        "calibrate --costs /nonexistent/y.costs|/nonexistent/y.costs: no such file",
        "calibrate --out /nonexistent/dir/z.costs|--out /nonexistent/dir/z.costs: no such directory",
        "--costs x.costs reproduce|--costs before 'reproduce' is an option of iommu-sim itself and would be ignored",
        "--cpus 4 calibrate|--cpus before 'calibrate' is an option of iommu-sim itself and would be ignored",
        "--cpus ,|--cpus needs at least one CPU count",
    })
    void badInputIsOneLineAndExitCode2(String args, String expected) {
        int code = run(args.split(" "));
        String e = err.toString();
        assertEquals(2, code, e);
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.startsWith("iommu-sim: "), e);
        assertTrue(e.contains(expected), e);
        assertEquals("", out.toString());
    }

    @Test
    void aMalformedCostFileNamesTheFileAndLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.costs");
        Files.writeString(f, CostModel.builtIn().format().replace("rx.budget", "rx.budgte"));
        int code = run("--clock", "virtual", "--costs", f.toString(), "-d", "1ms");
        assertEquals(2, code);
        assertTrue(err.toString().matches("iommu-sim: \\Q" + f + "\\E:\\d+: unknown cost 'rx.budgte'\\R"), err.toString());
    }

    @Test
    void aRunThatNeedsMoreMemoryThanTheJvmHasIsRefused(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("big.costs");
        Files.writeString(f, CostModel.builtIn().with(Cost.RX_RING_SLOTS, 65_536, "test").format());
        int code = run("--costs", f.toString(), "--cpus", "4", "--streams", "256", "-d", "1ms");
        assertEquals(2, code, err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("256 streams of 65536 buffers need"), err.toString());
    }

    @Test
    void aVirtualRunPrintsTheSameReportTwice() {
        String[] args = {"--clock", "virtual", "--cpus", "4", "-d", "20ms", "--warmup", "5ms", "-s", "7"};
        assertEquals(0, run(args), err.toString());
        String first = out.toString();
        assertTrue(first.contains("virtual time: 4 simulated CPU(s), 4 stream(s)"), first);
        assertTrue(first.contains("Adaptive mutex spin:"), first);
        assertTrue(first.contains("dmar_qi_task (loop)"), first);
        assertTrue(first.contains("comparison: dmarhw spin events/s locked/flushlist"), first);
        assertTrue(first.contains("IOVA ranges freed per entry unloaded: locked "), first);
        assertTrue(err.toString().contains("M events/s"), err.toString());
        assertEquals(0, run(args));
        assertEquals(first, out.toString());
    }

    @Test
    void aCpuListRunsASweepAndDrawsIt(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("sweep.html");
        assertEquals(0, run("--clock", "virtual", "--cpus", "1,2", "-d", "10ms", "--warmup", "2ms", "--html",
                html.toString()), err.toString());
        String o = out.toString();
        assertTrue(o.contains("TCP_MAERTS sweep in virtual time"), o);
        assertEquals(4, o.lines().filter(l -> l.matches("\\s+[12]\\s+[12] (locked|flushlist).*passed")).count(), o);
        assertTrue(o.contains("2 CPUs: comparison:"), o);
        String h = Files.readString(html);
        assertTrue(h.contains("Contention against simulated CPUs") && h.contains("<polyline"), "no sweep chart");
    }

    @Test
    void reproducePrintsFreeBsdsFiguresBesideTheModels() {
        String[] args = {"reproduce", "--states", "B,C", "-d", "30ms", "--warmup", "5ms"};
        assertEquals(0, run(args), err.toString());
        String o = out.toString();
        assertTrue(o.contains("== State B:") && o.contains("== State C:"), o);
        assertTrue(o.contains("iommu_domain_unload+0x1a8"), o);
        assertTrue(o.contains("(not modelled)"), o);
        assertTrue(o.contains("== Summary: FreeBSD's figure, the model's, model/FreeBSD =="), o);
        assertTrue(o.contains("B/C spin events/s (reduction)") && o.contains("C/B throughput (gain)"), o);
        assertTrue(o.contains("dmarhw iommu_domain_unload+0x1a8                    91736    829 "), o);
        // the summary's model figure is the model's own lockstat title line for the state
        String table = o.substring(o.indexOf("== State B:"), o.indexOf("== State C:"));
        java.util.regex.Matcher title = java.util.regex.Pattern
                .compile("Adaptive mutex spin: \\d+ events in [\\d.]+ seconds \\((\\d+) events/sec\\)").matcher(table);
        assertTrue(title.find(), table);
        java.util.regex.Matcher summary = java.util.regex.Pattern
                .compile("B adaptive spin events/s +[\\d.]+ +([\\d.]+) ").matcher(o);
        assertTrue(summary.find(), o);
        assertEquals(Long.parseLong(title.group(1)), Math.round(Double.parseDouble(summary.group(1))));
        assertEquals(0, run(args));
        assertEquals(o, out.toString());
        assertEquals(0, run("reproduce", "--states", "C", "-d", "10ms", "--warmup", "2ms", "--json"));
        assertTrue(out.toString().startsWith("{\"tool\":\"iommu-sim\""), out.toString());
        assertTrue(out.toString().contains("\"headlines\":["), out.toString());
    }

    @Test
    void calibrateWritesACostFileWithTheFitAsSource(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("fitted.costs");
        assertEquals(0, run("calibrate", "--evaluations", "10", "--window", "5ms", "--out", f.toString()),
                err.toString());
        CostModel m = CostModel.load(f);
        assertTrue(m.source(Cost.UNLOAD_HOLD_NS).startsWith("fit to FreeBSD's state B"), m.source(Cost.UNLOAD_HOLD_NS));
        assertTrue(m.source(Cost.A_LOAD_HOLD_NS).startsWith("fit to FreeBSD's state A"), m.source(Cost.A_LOAD_HOLD_NS));
        assertEquals(CostModel.builtIn().source(Cost.NIC_LINE_MBPS), m.source(Cost.NIC_LINE_MBPS));
        String text = Files.readString(f);
        assertTrue(text.contains("# B: throughput Mbit/s"), text);
    }
}
