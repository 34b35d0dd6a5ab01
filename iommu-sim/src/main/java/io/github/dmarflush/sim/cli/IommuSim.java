package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.driver.InvalidationMode;
import io.github.dmarflush.sim.driver.UnitHooks;
import io.github.dmarflush.sim.hw.EngineTiming;
import io.github.dmarflush.sim.hw.RegisterTiming;
import io.github.dmarflush.sim.report.HtmlReport;
import io.github.dmarflush.sim.report.JsonReport;
import io.github.dmarflush.sim.report.RunReport;
import io.github.dmarflush.sim.report.SweepReport;
import io.github.dmarflush.sim.virt.Sweep;
import io.github.dmarflush.sim.workload.DdWrite;
import io.github.dmarflush.sim.workload.ProgressListener;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.TcpMaerts;
import io.github.dmarflush.sim.workload.TcpStream;
import io.github.dmarflush.sim.workload.TraceFormat;
import io.github.dmarflush.sim.workload.TraceRecorder;
import io.github.dmarflush.sim.workload.TraceReplay;
import io.github.dmarflush.sim.workload.Workload;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's command line. With no arguments it runs the {@code TCP_MAERTS} workload in
 * virtual time on 8 simulated CPUs with the locked baseline, then with the flush list, same
 * seed and duration, and prints both reports and a comparison line. {@code --clock real} runs
 * the model on host threads instead (the only clock for the other workloads and strict mode);
 * {@code --cpus} lists sweep simulated CPUs; {@code --workload} picks another workload,
 * {@code --strategy} other runs, {@code --json} and {@code --html} other reports. The
 * subcommands {@code reproduce} and {@code calibrate} compare the model with FreeBSD's
 * measurements and fit it to them.
 *
 * <p>Exit codes: 0 success; 1 a run failed its safety checks (a DMA fault, a lost entry,
 * leaked IOVA space); 2 a wrong option or value, an unreadable or malformed trace, or a
 * report, trace or standard output that cannot be written (one line on stderr).
 */
@Command(name = "iommu-sim", mixinStandardHelpOptions = true, version = "iommu-sim 0.1.0",
        sortOptions = false, subcommands = {ReproduceCommand.class, CalibrateCommand.class},
        description = "Simulates Intel VT-d (DMAR) units under netperf-like (TCP_MAERTS, TCP_STREAM), dd-like "
                + "and trace-replay workloads and compares the pre-2022 locked TLB flush list with the lock-free "
                + "zombie-head flush list (and strict synchronous invalidation), printing lockstat-style contention "
                + "tables for the DMAR unit lock (dmarhw) and the domain lock (iodom).")
public final class IommuSim implements Callable<Integer> {

    /** Which runs to make. */
    enum StrategyChoice { both, locked, flushlist, strict, all }

    /** Which workload. */
    enum WorkloadChoice { tcp_maerts, tcp_stream, dd, replay }

    /** Which clock. */
    enum ClockChoice { real, virtual }

    /** Simulated CPUs of a virtual-time run when {@code --cpus} is not given. */
    static final int DEFAULT_CPUS = 8;

    @Option(names = "--clock", paramLabel = "C",
            description = "real (host threads; the library's concurrency for real, figures move with the host) or "
                    + "virtual (simulated CPUs and time, deterministic; tcp_maerts) (default: ${DEFAULT-VALUE}).")
    ClockChoice clock = ClockChoice.virtual;

    @Option(names = "--cpus", paramLabel = "N[,N...]", split = ",",
            description = "virtual: simulated CPUs, 1..256; a comma list runs a sweep (default: " + DEFAULT_CPUS + ").")
    List<Integer> cpus;

    @Option(names = "--streams", paramLabel = "N",
            description = "virtual: receive streams, one per NIC queue, 1..256 (default: one per simulated CPU).")
    Integer streams;

    @CommandLine.Mixin
    CostsOption costs = new CostsOption();

    @Option(names = {"-w", "--workload"}, paramLabel = "W",
            description = "tcp_maerts, tcp_stream, dd or replay (default: ${DEFAULT-VALUE}).")
    WorkloadChoice workload = WorkloadChoice.tcp_maerts;

    @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "CPU threads doing map, DMA, unmap (default: ${DEFAULT-VALUE}).")
    int threads = 4;

    @Option(names = {"-d", "--duration"}, paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured window per run, e.g. 10s, 500ms, at most 24h (default: 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Unmeasured warm-up per run (default: 3s).")
    Duration warmup = Duration.ofSeconds(3);

    @Option(names = {"-s", "--seed"}, paramLabel = "SEED", description = "Seed: payloads and buffer order; real: the engine jitter; virtual: the variation of every simulated time (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = {"-p", "--packet-size"}, paramLabel = "BYTES", description = "Bytes per packet, 1..65536 (default: ${DEFAULT-VALUE}).")
    int packetSize = 1500;

    @Option(names = "--request-size", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "dd: bytes per request, a multiple of 4k (default: 2m).")
    long requestSize = WorkloadConfig.DEFAULT_REQUEST;

    @Option(names = "--segment-size", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "dd: largest busdma segment, a multiple of 4k (default: 128k).")
    long segmentSize = WorkloadConfig.DEFAULT_SEGMENT;

    @Option(names = "--tx-batch", paramLabel = "N", description = "tcp_stream: packets unloaded per completion pass (default: ${DEFAULT-VALUE}).")
    int txBatch = WorkloadConfig.DEFAULT_TX_BATCH;

    @Option(names = "--trace", paramLabel = "FILE", description = "replay: a trace of Linux iommu:map/iommu:unmap events.")
    Path trace;

    @Option(names = "--record-trace", paramLabel = "FILE", description = "Write the first run's map/unmap events to FILE in the iommu:map/unmap trace format.")
    Path recordTrace;

    @Option(names = "--record-limit", paramLabel = "N", description = "Most events --record-trace writes (default: ${DEFAULT-VALUE}).")
    long recordLimit = 100_000;

    @Option(names = "--strategy", paramLabel = "S",
            description = "both (locked then flushlist), locked, flushlist, strict, or all three (default: ${DEFAULT-VALUE}).")
    StrategyChoice strategy = StrategyChoice.both;

    @Option(names = "--batch-coalesce", paramLabel = "N", description = "Interrupting wait descriptor every N unloaded entries, and on the last (default: ${DEFAULT-VALUE}).")
    int batchCoalesce = 100;

    @Option(names = "--qi-size", paramLabel = "QS", description = "Invalidation queue of 2^QS pages of 256 descriptors, 0..7 (default: ${DEFAULT-VALUE}).")
    int qs = 3;

    @Option(names = "--descriptor-latency", paramLabel = "NS", description = "Hardware time per descriptor, every type, 0..1000000 ns (default: ${DEFAULT-VALUE}).")
    long descriptorLatency = 0;

    @Option(names = "--latency", paramLabel = "LIST", converter = LatencyConverter.class,
            description = "Hardware time per descriptor type, ns, e.g. iotlb=300,wait=100,ctx=0,iec=0 (overrides --descriptor-latency).")
    LatencyConverter.Latencies latency;

    @Option(names = "--jitter", paramLabel = "NS", description = "Up to this much more hardware time per descriptor, uniform, seeded, 0..1000000 ns (default: ${DEFAULT-VALUE}).")
    long jitter = 0;

    @Option(names = "--mmio", paramLabel = "LIST", converter = RegisterTimingConverter.class,
            description = "CPU stall per DMAR register access (uncached MMIO), ns: read=N,write=N, or 0 for none (default: read=300,write=100).")
    RegisterTiming mmio = RegisterTiming.DEFAULT;

    @Option(names = "--spin", paramLabel = "NS", description = "How long a contended mutex spins before blocking, ns (default: ${DEFAULT-VALUE}).")
    long spinNanos = 10_000;

    @Option(names = "--iotlb-entries", paramLabel = "N", description = "IOTLB slots per unit, a power of two (default: ${DEFAULT-VALUE}).")
    int iotlbEntries = 512;

    @Option(names = "--units", paramLabel = "N", description = "DMAR units, 1..8 (default: ${DEFAULT-VALUE}).")
    int units = 1;

    @Option(names = "--domains", paramLabel = "N", description = "Domains per unit, 1..64 (default: ${DEFAULT-VALUE}).")
    int domains = 1;

    @Option(names = "--devices", paramLabel = "N", description = "Devices, spread over units and domains; CPU i uses device i mod N, 1..256 (default: ${DEFAULT-VALUE}).")
    int devices = 1;

    @Option(names = "--levels", paramLabel = "L", description = "Page-table levels: 3, 4 or 5 (39-, 48-, 57-bit IOVAs) (default: ${DEFAULT-VALUE}).")
    int levels = 4;

    @Option(names = "--no-superpages", description = "Map with 4 KiB pages only.")
    boolean noSuperpages;

    @Option(names = "--json", description = "Print one JSON document instead of the text reports.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report with charts to FILE.")
    Path html;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Longest --duration and --warmup. */
    private static final Duration MAX_TIME = Duration.ofHours(24);
    /** Longest hardware time per descriptor (--descriptor-latency, --latency, --jitter), ns. */
    private static final long MAX_ENGINE_NANOS = 1_000_000;

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private void validate() {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        if (clock == ClockChoice.real) {
            for (String v : new String[] {"--cpus", "--streams", "--costs"}) {
                if (parsed.hasMatchedOption(v)) {
                    throw bad(v + " is for --clock virtual");
                }
            }
        } else {
            validateVirtual(parsed);
        }
        if (threads < 1 || threads > 256) {
            throw bad("--threads must be 1..256, got " + threads);
        }
        if (duration.isZero() || duration.isNegative()) {
            throw bad("--duration must be positive");
        }
        // A deadline of System.nanoTime() + ~292 years overflows: such a run measured 0 s and
        // reported success. A day is far beyond any useful window.
        if (duration.compareTo(MAX_TIME) > 0) {
            throw bad("--duration must be at most 24h, got " + duration.toSeconds() + "s");
        }
        if (warmup.compareTo(MAX_TIME) > 0) {
            throw bad("--warmup must be at most 24h, got " + warmup.toSeconds() + "s");
        }
        if (packetSize < 1 || packetSize > WorkloadConfig.MAX_PACKET) {
            throw bad("--packet-size must be 1..65536 bytes, got " + packetSize);
        }
        if (requestSize < 4096 || (requestSize & 4095) != 0 || requestSize > (16L << 20)) {
            throw bad("--request-size must be a multiple of 4k, 4k..16m, got " + requestSize);
        }
        if (segmentSize < 4096 || (segmentSize & 4095) != 0) {
            throw bad("--segment-size must be a positive multiple of 4k, got " + segmentSize);
        }
        if ((long) threads * requestSize * 2 > (160L << 20) && workload == WorkloadChoice.dd) {
            throw bad("--threads x --request-size needs more than the 256 MiB of simulated memory");
        }
        if (txBatch < 1 || txBatch > 1024) {
            throw bad("--tx-batch must be 1..1024, got " + txBatch);
        }
        long pageRounded = (packetSize + 4095L) & ~4095L;
        long netBytes = workload == WorkloadChoice.tcp_stream
                ? (long) threads * txBatch * (4096 + pageRounded)
                : (long) threads * 16 * pageRounded;
        if (clock == ClockChoice.real && workload != WorkloadChoice.dd && workload != WorkloadChoice.replay
                && netBytes > (160L << 20)) {
            throw bad("--threads x buffers x --packet-size needs more than the 256 MiB of simulated memory");
        }
        if (batchCoalesce < 1) {
            throw bad("--batch-coalesce must be >= 1, got " + batchCoalesce);
        }
        if (qs < 0 || qs > 7) {
            throw bad("--qi-size must be 0..7, got " + qs);
        }
        // The engine busy-waits for these: beyond a millisecond per descriptor the end-of-run
        // quiesce of a full queue takes minutes, and Long.MAX_VALUE jitter killed the engine
        // thread (SplittableRandom bound overflow) and hung the run.
        checkEngineNanos("--descriptor-latency", descriptorLatency);
        checkEngineNanos("--jitter", jitter);
        if (latency != null) {
            for (var e : latency.byType().entrySet()) {
                checkEngineNanos("--latency " + e.getKey(), e.getValue());
            }
        }
        if (spinNanos < 0) {
            throw bad("--spin must be >= 0 ns, got " + spinNanos);
        }
        if (iotlbEntries < 1 || Integer.bitCount(iotlbEntries) != 1) {
            throw bad("--iotlb-entries must be a power of two, got " + iotlbEntries);
        }
        if (units < 1 || units > 8) {
            throw bad("--units must be 1..8, got " + units);
        }
        if (domains < 1 || domains > 64) {
            throw bad("--domains must be 1..64, got " + domains);
        }
        if (devices < 1 || devices > 256) {
            throw bad("--devices must be 1..256, got " + devices);
        }
        if (levels < 3 || levels > 5) {
            throw bad("--levels must be 3, 4 or 5, got " + levels);
        }
        if (workload == WorkloadChoice.replay && trace == null) {
            throw bad("--workload replay needs --trace FILE");
        }
        if (workload != WorkloadChoice.replay && trace != null) {
            throw bad("--trace is for --workload replay");
        }
        if (workload == WorkloadChoice.replay && recordTrace != null) {
            throw bad("--record-trace records a simulated workload, not a replay");
        }
        if (recordLimit < 1) {
            throw bad("--record-limit must be >= 1, got " + recordLimit);
        }
        // Options that only one workload reads: given to another, they were silently ignored.
        CommandLine.ParseResult given = parsed;
        if (recordTrace == null && given.hasMatchedOption("--record-limit")) {
            throw bad("--record-limit is for --record-trace");
        }
        for (String ddOnly : new String[] {"--request-size", "--segment-size"}) {
            if (workload != WorkloadChoice.dd && given.hasMatchedOption(ddOnly)) {
                throw bad(ddOnly + " is for --workload dd");
            }
        }
        if (workload != WorkloadChoice.tcp_stream && given.hasMatchedOption("--tx-batch")) {
            throw bad("--tx-batch is for --workload tcp_stream");
        }
        if (html != null) {
            checkWritable("--html", html);
        }
        if (recordTrace != null) {
            checkWritable("--record-trace", recordTrace);
        }
    }

    private void validateVirtual(CommandLine.ParseResult parsed) {
        if (workload != WorkloadChoice.tcp_maerts) {
            throw bad("--clock virtual runs --workload tcp_maerts (the other workloads run on host threads)");
        }
        if (strategy == StrategyChoice.strict || strategy == StrategyChoice.all) {
            throw bad("--clock virtual runs the locked and flushlist strategies; strict invalidation is not modelled"
                    + " in virtual time");
        }
        if (parsed.hasMatchedOption("--threads")) {
            throw bad("--threads is for --clock real; in virtual time use --cpus and --streams");
        }
        for (String v : new String[] {"--descriptor-latency", "--latency", "--jitter", "--mmio", "--spin"}) {
            if (parsed.hasMatchedOption(v)) {
                throw bad(v + " is for --clock real; in virtual time the times come from the cost model (--costs)");
            }
        }
        if (parsed.hasMatchedOption("--record-trace")) {
            throw bad("--record-trace is for --clock real");
        }
        if (cpus != null && cpus.isEmpty()) {
            throw bad("--cpus needs at least one CPU count");
        }
        for (int n : cpuList()) {
            if (n < 1 || n > 256) {
                throw bad("--cpus must be 1..256, got " + n);
            }
        }
        if (cpuList().stream().distinct().count() != cpuList().size()) {
            throw bad("--cpus lists a CPU count twice: " + cpuList());
        }
        if (streams != null && (streams < 1 || streams > 256)) {
            throw bad("--streams must be 1..256, got " + streams);
        }
    }

    List<Integer> cpuList() {
        return cpus == null || cpus.isEmpty() ? List.of(DEFAULT_CPUS) : cpus;
    }

    private void checkEngineNanos(String what, long nanos) {
        if (nanos < 0 || nanos > MAX_ENGINE_NANOS) {
            throw bad(what + " must be 0.." + MAX_ENGINE_NANOS + " ns (1 ms), got " + nanos);
        }
    }

    /**
     * Refuses an output file that cannot be created before the runs spend their time: a
     * directory, or a file in a directory that does not exist or is not writable. (Running as
     * root, or on a full disk, the write itself can still fail; that is reported too.)
     */
    private void checkWritable(String option, Path file) {
        String why = unwritable(option, file);
        if (why != null) {
            throw bad(why);
        }
    }

    /** @return why {@code file} cannot be written, for {@code option}'s message, or null */
    static String unwritable(String option, Path file) {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        if (Files.isDirectory(abs)) {
            return option + " " + file + ": is a directory";
        }
        if (dir == null || !Files.isDirectory(dir)) {
            return option + " " + file + ": no such directory " + dir;
        }
        if (Files.exists(abs) ? !Files.isWritable(abs) : !Files.isWritable(dir)) {
            return option + " " + file + ": permission denied";
        }
        return null;
    }

    /**
     * Refuses options given to {@code iommu-sim} itself ahead of a subcommand: they would be
     * ignored ({@code iommu-sim --costs f reproduce} is not {@code iommu-sim reproduce --costs f}).
     *
     * @param sub the subcommand's spec
     * @throws CommandLine.ParameterException naming the first such option
     */
    static void refuseOptionsBefore(CommandLine.Model.CommandSpec sub) {
        CommandLine parent = sub.commandLine().getParent();
        List<CommandLine.Model.OptionSpec> given = parent.getParseResult().matchedOptions();
        if (!given.isEmpty()) {
            throw new CommandLine.ParameterException(sub.commandLine(), given.get(0).longestName()
                    + " before '" + sub.name() + "' is an option of iommu-sim itself and would be ignored; "
                    + "put the options after '" + sub.name() + "'");
        }
    }

    /**
     * Exit code 2 with one line on stderr: a wrong option, input that cannot be read, or
     * output that cannot be written.
     */
    static int usageError(PrintWriter err, String message) {
        err.println("iommu-sim: " + message);
        err.flush();
        return 2;
    }

    /** The reason of an I/O failure in a few words, without the exception's class name. */
    static String why(IOException e) {
        return e instanceof java.nio.file.NoSuchFileException ? "no such file"
                : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private EngineTiming timing() {
        if (latency == null) {
            return new EngineTiming(descriptorLatency, descriptorLatency, descriptorLatency, descriptorLatency,
                    jitter, seed);
        }
        return new EngineTiming(latency.get("iotlb"), latency.get("ctx"), latency.get("iec"), latency.get("wait"),
                jitter, seed);
    }

    private List<MachineConfig> runs() {
        MachineConfig base = new MachineConfig(FlushStrategy.LOCKED, InvalidationMode.DEFERRED, qs, iotlbEntries,
                levels, !noSuperpages, timing(), mmio, spinNanos, batchCoalesce, 256 << 20, units, domains, devices,
                UnitHooks.LIBRARY);
        MachineConfig locked = base;
        MachineConfig flush = base.withStrategy(FlushStrategy.FLUSHLIST);
        MachineConfig strict = flush.withMode(InvalidationMode.STRICT);
        return switch (strategy) {
            case both -> List.of(locked, flush);
            case locked -> List.of(locked);
            case flushlist -> List.of(flush);
            case strict -> List.of(strict);
            case all -> List.of(locked, flush, strict);
        };
    }

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (clock == ClockChoice.virtual) {
            return callVirtual(out, err);
        }
        List<TraceFormat.Event> events = null;
        if (workload == WorkloadChoice.replay) {
            try {
                events = TraceFormat.read(trace);
            } catch (TraceFormat.MalformedTraceException e) {
                return usageError(err, e.getMessage());
            } catch (IOException e) {
                return usageError(err, "cannot read trace " + trace + ": " + why(e));
            }
        }
        WorkloadConfig wc = new WorkloadConfig(threads, warmup, duration, packetSize, seed, requestSize, segmentSize,
                txBatch);
        boolean showProgress = workload != WorkloadChoice.replay && warmup.plus(duration).toMillis() > 3000;
        List<RunResult> results = new ArrayList<>();
        TraceRecorder recorder = null;
        if (recordTrace != null) {
            try {
                recorder = new TraceRecorder(new PrintWriter(Files.newBufferedWriter(recordTrace,
                        StandardCharsets.UTF_8)), recordLimit);
            } catch (IOException e) {
                return usageError(err, "cannot write " + recordTrace + ": " + why(e));
            }
        }
        try {
            for (MachineConfig mc : runs()) {
                String label = mc.label();
                ProgressListener progress = showProgress ? (phase, el, total, ops) -> {
                    err.printf(Locale.ROOT, "[%s] %s %.0f/%.0f s, %d ops%n", label, phase, el, total, ops);
                    err.flush();
                } : ProgressListener.NONE;
                RunResult r;
                try (SimMachine m = new SimMachine(mc)) {
                    if (events != null) {
                        r = new TraceReplay(m, events, trace.getFileName().toString(), wc).run();
                    } else {
                        Workload w = switch (workload) {
                            case tcp_maerts -> new TcpMaerts(m, wc);
                            case tcp_stream -> new TcpStream(m, wc);
                            case dd -> new DdWrite(m, wc);
                            case replay -> throw new AssertionError();
                        };
                        if (recorder != null) {
                            w.recordTo(recorder);
                        }
                        r = w.run(progress);
                    }
                }
                if (recorder != null) {
                    recorder.close();
                    if (recorder.failed()) {
                        return usageError(err, "cannot write " + recordTrace + ": write error (disk full?)");
                    }
                    err.println("iommu-sim: recorded " + recorder.written() + " map/unmap events to " + recordTrace);
                    recorder = null;
                }
                results.add(r);
                if (!json) {
                    out.print(RunReport.format(r));
                    out.println();
                    out.flush();
                }
            }
        } finally {
            if (recorder != null) {
                recorder.close();
            }
        }
        RunResult locked = results.stream().filter(r -> r.label().equals("locked")).findFirst().orElse(null);
        RunResult flush = results.stream().filter(r -> r.label().equals("flushlist")).findFirst().orElse(null);
        String command = "iommu-sim " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        if (json) {
            out.println(JsonReport.format(results, command.strip()));
        } else if (locked != null && flush != null) {
            out.println(RunReport.comparison(locked, flush));
        }
        return finish(out, err, results, command.strip(), loadAverage());
    }

    /**
     * Flushes the report, writes the HTML report if asked, and gives the exit code: 2 if an
     * output cannot be written (one line on stderr), 1 if a run failed its checks, else 0.
     */
    private int finish(PrintWriter out, PrintWriter err, List<RunResult> results, String command, String hostLoad) {
        out.flush();
        if (out.checkError()) {
            // PrintWriter does not throw: without this a full disk or a closed pipe under
            // `iommu-sim --json > results.json` would end with exit code 0 and no report.
            return usageError(err, "cannot write the report to standard output");
        }
        if (html != null) {
            try {
                Files.writeString(html, HtmlReport.format(results, command, hostLoad), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return usageError(err, "cannot write --html " + html + ": " + why(e));
            }
            err.println("iommu-sim: wrote " + html);
        }
        boolean clean = results.stream().allMatch(RunResult::clean);
        if (!clean) {
            err.println("iommu-sim: a run FAILED its end-of-run checks (see FAILED lines above)");
        }
        err.flush();
        return clean ? 0 : 1;
    }

    /** A virtual-time run: one point per strategy and CPU count; a sweep when several CPU counts are given. */
    private int callVirtual(PrintWriter out, PrintWriter err) {
        CostModel model;
        try {
            model = costs.load();
        } catch (CostModel.CostFileException e) {
            return usageError(err, e.getMessage());
        }
        WorkloadConfig wc = new WorkloadConfig(1, warmup, duration, packetSize, seed);
        Sweep sweep = new Sweep(model, wc, streams);
        List<MachineConfig> machines = runs();
        List<Integer> counts = cpuList();
        List<RunResult> results = new ArrayList<>();
        try {
            results = sweep.runAll(machines, counts, p -> {
                RunResult r = p.result();
                err.printf(Locale.ROOT, "iommu-sim: [%s, %d CPUs, %d streams] %d events in %.1f s of host time "
                                + "(%.2f M events/s)%n", r.label(), r.clock().cpus(), r.clock().streams(), p.events(),
                        p.hostNanos() / 1e9, p.events() / (p.hostNanos() / 1e9) / 1e6);
                err.flush();
                if (!json && counts.size() == 1) {
                    out.print(RunReport.format(r));
                    out.println();
                    out.flush();
                }
            });
        } catch (IllegalArgumentException e) {
            return usageError(err, e.getMessage());
        }
        String command = ("iommu-sim " + String.join(" ", spec.commandLine().getParseResult().originalArgs())).strip();
        if (json) {
            out.println(JsonReport.format(results, command));
        } else if (counts.size() > 1) {
            out.print(SweepReport.format(results));
        }
        if (!json) {
            for (int n : counts) {
                RunResult locked = find(results, "locked", n);
                RunResult flush = find(results, "flushlist", n);
                if (locked != null && flush != null) {
                    out.println((counts.size() > 1 ? n + " CPUs: " : "") + RunReport.comparison(locked, flush));
                }
            }
        }
        return finish(out, err, results, command, null);
    }

    private static RunResult find(List<RunResult> results, String label, int cpus) {
        return results.stream().filter(r -> r.label().equals(label) && r.clock().cpus() == cpus).findFirst()
                .orElse(null);
    }

    private static String loadAverage() {
        try {
            return "load average " + Files.readString(Path.of("/proc/loadavg")).strip() + ", "
                    + Runtime.getRuntime().availableProcessors() + " CPUs";
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors() + " CPUs";
        }
    }

    /**
     * Builds the command line with one-line errors and exit code 2 for bad input.
     *
     * @return the configured command line
     */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new IommuSim());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println("iommu-sim: " + oneLine(ex.getMessage()) + " (see --help)");
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            commandLine.getErr().println("iommu-sim: " + oneLine(String.valueOf(ex)));
            return 1;
        });
        return cl;
    }

    private static String oneLine(String s) {
        return s == null ? "invalid arguments" : s.replaceAll("\\s*\\R\\s*", "; ");
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
