package io.github.dmarflush.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class IommuSimTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Runs the command line on host threads ({@code --clock real}, ahead of {@code args}). */
    private int run(String... args) {
        CommandLine cl = IommuSim.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 2];
        all[0] = "--clock";
        all[1] = "real";
        System.arraycopy(args, 0, all, 2, args.length);
        return cl.execute(all);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--bogus|Unknown option: '--bogus'",
        "--threads x|Invalid value for option '--threads'",
        "--threads 0|--threads must be 1..256, got 0",
        "--duration soon|'soon' is not a duration",
        "--packet-size 70000|--packet-size must be 1..65536 bytes, got 70000",
        "--strategy fastest|Invalid value for option '--strategy'",
        "--iotlb-entries 100|--iotlb-entries must be a power of two, got 100",
        "--qi-size 9|--qi-size must be 0..7, got 9",
        "--mmio fast|'fast' is not a register timing (example: read=300,write=100; ns)",
        "--mmio read=1,bus=2|is not a register timing",
        "--workload netperf|Invalid value for option '--workload'",
        "--workload replay|--workload replay needs --trace FILE",
        "--trace x.trace|--trace is for --workload replay",
        "--request-size 3000|--request-size must be a multiple of 4k",
        "--latency iotlb=fast|is not a latency list",
        "--levels 6|--levels must be 3, 4 or 5, got 6",
        "--units 0|--units must be 1..8, got 0",
        "--strategy fastest|Invalid value for option '--strategy'",
        "-w replay --trace t --record-trace r|--record-trace records a simulated workload, not a replay",
        "-t 256 -p 65536|needs more than the 256 MiB of simulated memory",
        "-w dd -t 64|--threads x --request-size needs more than the 256 MiB of simulated memory",
        "--duration 99999999999999999999s|--duration must be at most 24h",
        "--duration 25h|--duration must be at most 24h, got 90000s",
        "--duration 2d|'2d' is not a duration",
        "--warmup 1441m|--warmup must be at most 24h, got 86460s",
        "--jitter 9223372036854775807|--jitter must be 0..1000000 ns (1 ms), got 9223372036854775807",
        "--descriptor-latency 100000000000|--descriptor-latency must be 0..1000000 ns",
        "--descriptor-latency -1|--descriptor-latency must be 0..1000000 ns (1 ms), got -1",
        "--latency iotlb=1,wait=2000000|--latency wait must be 0..1000000 ns (1 ms), got 2000000",
        "-w dd --segment-size 17179869184g|'17179869184g' is too large",
        "--record-limit 10|--record-limit is for --record-trace",
        "--segment-size 2m|--segment-size is for --workload dd",
        "-w tcp_stream --request-size 4k|--request-size is for --workload dd",
        "-w dd --tx-batch 4|--tx-batch is for --workload tcp_stream",
    })
    void badInputIsOneLineAndExitCode2(String args, String expected) {
        int code = run(args.split(" "));
        assertEquals(2, code);
        String e = err.toString();
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.startsWith("iommu-sim: "), e);
        assertTrue(e.contains(expected), e);
        assertEquals("", out.toString());
    }

    @Test
    void tinyRunOfBothStrategiesPrintsBothReportsAndTheComparison() {
        int code = run("-d", "300ms", "--warmup", "100ms", "-t", "2");
        assertEquals(0, code, err.toString());
        String o = out.toString();
        assertTrue(o.contains("== TCP_MAERTS, strategy locked"), o);
        assertTrue(o.contains("== TCP_MAERTS, strategy flushlist"), o);
        assertTrue(o.contains("Adaptive mutex spin: "), o);
        assertTrue(o.contains("Count indv cuml rcnt     nsec Lock"), o);
        assertTrue(o.lines().anyMatch(l -> l.startsWith("comparison: dmarhw spin events/s locked/flushlist = ")), o);
        assertTrue(o.contains("end-of-run checks: passed"), o);
    }

    @Test
    void malformedTraceIsOneLineWithFileAndLineAndExitCode2(@TempDir Path dir) throws Exception {
        Path t = dir.resolve("bad.trace");
        Files.writeString(t, "# header\nmap: IOMMU: iova=0x1000 - 0x2000 paddr=0x5000\n");
        int code = run("-w", "replay", "--trace", t.toString());
        assertEquals(2, code);
        String e = err.toString();
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.startsWith("iommu-sim: " + t + ":2: malformed trace line"
                + " (an iommu:map event needs iova=0x... - 0x... paddr=0x... size=N)"), e);
        assertEquals("", out.toString());
    }

    @Test
    void traceWithoutEventsOrNotTextIsOneLineAndExitCode2(@TempDir Path dir) throws Exception {
        Path empty = dir.resolve("empty.trace");
        Files.writeString(empty, "# tracer: nop\n#\n");
        assertEquals(2, run("-w", "replay", "--trace", empty.toString()));
        assertEquals("iommu-sim: " + empty + ": no iommu:map or iommu:unmap event in 2 lines", err.toString().strip());
        assertEquals("", out.toString(), "nothing replayed, no report");
        err.getBuffer().setLength(0);
        Path binary = dir.resolve("binary.trace");
        Files.write(binary, new byte[] {'#', '\n', (byte) 0xC3, (byte) 0x28, '\n'});
        assertEquals(2, run("-w", "replay", "--trace", binary.toString()));
        assertEquals("iommu-sim: " + binary + ": not UTF-8 text", err.toString().strip());
    }

    @Test
    void missingTraceFileIsOneLineAndExitCode2(@TempDir Path dir) {
        Path t = dir.resolve("absent.trace");
        int code = run("-w", "replay", "--trace", t.toString());
        assertEquals(2, code);
        assertEquals("iommu-sim: cannot read trace " + t + ": no such file", err.toString().strip());
    }

    @Test
    void unwritableReportOrTracePathIsRefusedBeforeTheRun(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-dir").resolve("r.html");
        assertEquals(2, run("--html", missing.toString()));
        assertEquals("iommu-sim: --html " + missing + ": no such directory " + missing.getParent() + " (see --help)",
                err.toString().strip());
        assertEquals("", out.toString(), "refused before any run");
        err.getBuffer().setLength(0);
        assertEquals(2, run("--record-trace", dir.toString()));
        assertEquals("iommu-sim: --record-trace " + dir + ": is a directory (see --help)", err.toString().strip());
        assertEquals("", out.toString());
    }

    @Test
    void reportThatCannotBeWrittenIsExitCode2NotSuccess() {
        CommandLine cl = IommuSim.commandLine();
        cl.setOut(new PrintWriter(new java.io.Writer() { // standard output on a full disk
            @Override
            public void write(char[] buf, int off, int len) throws java.io.IOException {
                throw new java.io.IOException("No space left on device");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        }));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("--clock", "real", "--strategy", "flushlist", "-d", "100ms", "--warmup", "0", "-t", "1", "--json");
        assertEquals(2, code, err.toString());
        assertEquals("iommu-sim: cannot write the report to standard output", err.toString().strip());
    }

    @Test
    void traceRecordedToAFullDiskIsAnErrorNotACount() {
        Path full = Path.of("/dev/full");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(full), "needs Linux /dev/full");
        int code = run("--strategy", "flushlist", "-d", "100ms", "--warmup", "0", "-t", "1",
                "--record-trace", full.toString());
        assertEquals(2, code, err.toString());
        assertEquals("iommu-sim: cannot write /dev/full: write error (disk full?)", err.toString().strip());
    }

    @Test
    void jsonAndHtmlReportsOfAStrictAndAFlushListRun(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("r.html");
        int code = run("-w", "tcp_stream", "--strategy", "all", "-d", "200ms", "--warmup", "0", "-t", "2", "--json",
                "--html", html.toString());
        assertEquals(0, code, err.toString());
        String o = out.toString().strip();
        assertEquals(1, o.lines().count(), "one JSON document on one line");
        assertTrue(o.startsWith("{\"tool\":\"iommu-sim\""), o);
        assertTrue(o.contains("\"label\":\"strict\""), o);
        assertTrue(o.contains("\"comparison\":{"), o);
        assertTrue(o.endsWith("\"clean\":true}"), o);
        assertEquals(o.chars().filter(c -> c == '{').count(), o.chars().filter(c -> c == '}').count());
        String h = Files.readString(html);
        assertTrue(h.contains("<svg"), "inline charts");
        assertTrue(h.contains("dmarhw wait distribution"));
        assertTrue(!h.contains("http://") || h.replace("http://www.w3.org/2000/svg", "").indexOf("http") < 0,
                "nothing fetched from elsewhere");
    }

    @Test
    void perTypeLatencyJitterAndTopologyReachTheMachine() {
        int code = run("-w", "dd", "--strategy", "flushlist", "-d", "200ms", "--warmup", "0", "-t", "2",
                "--latency", "iotlb=2000,wait=500", "--jitter", "300", "--units", "2", "--devices", "2",
                "--segment-size", "2m");
        assertEquals(0, code, err.toString());
        String o = out.toString();
        assertTrue(o.contains("machine: 2 unit(s) x 1 domain(s), 2 device(s)"), o);
        assertTrue(o.contains("engine iotlb=2000ns ctx=0ns iec=0ns wait=500ns jitter=300ns"), o);
        assertTrue(o.contains("request 2048 KiB in segments of 2048 KiB"), o);
        assertTrue(o.contains("end-of-run checks: passed"), o);
    }
}
