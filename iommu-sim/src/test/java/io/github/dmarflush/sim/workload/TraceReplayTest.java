package io.github.dmarflush.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.InvalidationMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TraceReplayTest {

    private static final WorkloadConfig WC = new WorkloadConfig(1, Duration.ZERO, Duration.ofSeconds(1), 1500, 1);

    @TempDir
    Path dir;

    private Path write(String name, String... lines) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, List.of(lines));
        return p;
    }

    @Test
    void parsesLinuxTracepointLinesWithAndWithoutTheFtracePrefix() throws Exception {
        Path p = write("t.trace",
                "# tracer: nop",
                "#",
                "  irq/36-nvme-512   [002] ..... 1234.567890: map: IOMMU: iova=0x00000000fffe0000 - 0x00000000ffff0000"
                        + " paddr=0x0000000123456000 size=65536",
                "          <idle>-0   [000] d.h1.  1234.600000: io_page_fault: IOMMU:0000:03:00.0 iova=0x1 flags=0x0",
                "",
                "unmap: IOMMU: iova=0x00000000fffe0000 - 0x00000000ffff0000 size=65536 unmapped_size=65536");
        List<TraceFormat.Event> ev = TraceFormat.read(p);
        assertEquals(2, ev.size(), "the other tracepoint's line is skipped");
        assertEquals(new TraceFormat.Event(3, false, 0xfffe0000L, 65536, 0x123456000L, 0), ev.get(0));
        assertEquals(new TraceFormat.Event(6, true, 0xfffe0000L, 65536, 0, 65536), ev.get(1));
        // What the recorder writes, the parser reads.
        assertEquals(new TraceFormat.Event(1, false, 0x2000, 4096, 0x9000, 0),
                TraceFormat.parseLine(TraceFormat.formatMap(0x2000, 0x9000, 4096), 1, "x"));
    }

    @Test
    void malformedLineNamesTheFileAndTheLineNumber() throws Exception {
        Path p = write("bad.trace",
                "map: IOMMU: iova=0x0000000000010000 - 0x0000000000011000 paddr=0x0000000000200000 size=4096",
                "unmap: IOMMU: iova=0x0000000000010000 - 0x0000000000011000 size=4096",
                "map: IOMMU: iova=0x0000000000010000 - 0x0000000000011000 paddr=0x0000000000200000 size=4096");
        var e = assertThrows(TraceFormat.MalformedTraceException.class, () -> TraceFormat.read(p));
        assertTrue(e.getMessage().startsWith(p + ":2: malformed trace line"), e.getMessage());
        Path q = write("span.trace",
                "map: IOMMU: iova=0x0000000000010000 - 0x0000000000012000 paddr=0x0000000000200000 size=4096");
        var f = assertThrows(TraceFormat.MalformedTraceException.class, () -> TraceFormat.read(q));
        assertTrue(f.getMessage().startsWith(q + ":1: malformed trace line (iova range"), f.getMessage());
        Path r = write("junk.trace", "# ok", "hello world");
        var g = assertThrows(TraceFormat.MalformedTraceException.class, () -> TraceFormat.read(r));
        assertTrue(g.getMessage().startsWith(r + ":2: malformed trace line (not a trace line)"), g.getMessage());
    }

    @ParameterizedTest
    @EnumSource(InvalidationMode.class)
    void unmapOfAnUnmappedIovaIsCountedAndTheRunGoesOnLosingNothing(InvalidationMode mode) throws Exception {
        Path p = write("replay.trace",
                TraceFormat.formatMap(0x10000, 0x200000, 8192),
                TraceFormat.formatMap(0x20000, 0x300000, 4096),
                TraceFormat.formatUnmap(0x10000, 8192),
                TraceFormat.formatUnmap(0x50000, 4096), // never mapped
                TraceFormat.formatUnmap(0x20000, 0), // zero bytes: nothing to invalidate
                TraceFormat.formatMap(0x10000, 0x400000, 4096), // reuses a range just unmapped
                TraceFormat.formatUnmap(0x20000, 4096),
                TraceFormat.formatUnmap(0x10000, 4096));
        MachineConfig c = MachineConfig.defaults(FlushStrategy.FLUSHLIST).withMode(mode);
        RunResult r;
        try (SimMachine m = new SimMachine(c)) {
            r = new TraceReplay(m, TraceFormat.read(p), "replay.trace", WC).run();
            assertEquals(0, m.domain().allocatedRanges());
        }
        assertEquals(List.of(), r.problems());
        assertTrue(r.clean());
        assertEquals(1, r.unmapsNotMapped());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("replay.trace:4: unmap of IOVA 0x50000")), r.notes().toString());
        assertEquals(8, r.ops());
        assertEquals(3, r.qi().unloadedEntries(), "every mapped range was unloaded and freed");
        assertEquals(1, r.qi().emptyUnloads());
        assertEquals(0, r.dmaFaults());
    }

    @Test
    void recordedRunReplaysClean(@TempDir Path tmp) throws Exception {
        Path trace = tmp.resolve("rec.trace");
        try (var rec = new TraceRecorder(new java.io.PrintWriter(Files.newBufferedWriter(trace)), 4000);
                SimMachine m = new SimMachine(MachineConfig.defaults(FlushStrategy.FLUSHLIST))) {
            TcpMaerts w = new TcpMaerts(m, new WorkloadConfig(2, Duration.ZERO, Duration.ofMillis(200), 1500, 3));
            w.recordTo(rec);
            assertTrue(w.run(ProgressListener.NONE).clean());
        }
        List<TraceFormat.Event> events = TraceFormat.read(trace);
        assertTrue(events.size() > 100, "recorded " + events.size());
        for (FlushStrategy s : FlushStrategy.values()) {
            try (SimMachine m = new SimMachine(MachineConfig.defaults(s))) {
                RunResult r = new TraceReplay(m, events, "rec.trace", WC).run();
                assertEquals(List.of(), r.problems());
                assertEquals(0, r.unmapsNotMapped(), r.notes().toString());
                assertNull(r.notes().stream().filter(n -> n.contains("over a range")).findFirst().orElse(null));
            }
        }
    }
}
