package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.report.RunReport;
import io.github.dmarflush.sim.workload.ProgressListener;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.TcpMaerts;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's command line. With no arguments it runs the {@code TCP_MAERTS} workload
 * with the locked baseline, then with the flush list, same seed, threads and duration, and
 * prints both reports and a comparison line.
 *
 * <p>Exit codes: 0 success; 1 a run failed its safety checks (a DMA fault, a lost entry,
 * leaked IOVA space); 2 a wrong option or value (one line on stderr).
 */
@Command(name = "iommu-sim", mixinStandardHelpOptions = true, version = "iommu-sim 0.1.0",
        sortOptions = false,
        description = {
            "Simulates an Intel VT-d (DMAR) unit under a netperf TCP_MAERTS-like receive workload and",
            "compares the pre-2022 locked TLB flush list with the lock-free zombie-head flush list,",
            "printing lockstat-style contention tables for the DMAR unit lock (dmarhw) and the domain",
            "lock (iodom)."
        })
public final class IommuSim implements Callable<Integer> {

    /** Which strategies to run. */
    enum StrategyChoice { both, locked, flushlist }

    @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "CPU threads doing map, DMA, unmap (default: ${DEFAULT-VALUE}).")
    int threads = 4;

    @Option(names = {"-d", "--duration"}, paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured window per strategy, e.g. 10s, 500ms (default: 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Unmeasured warm-up per strategy (default: 3s).")
    Duration warmup = Duration.ofSeconds(3);

    @Option(names = {"-s", "--seed"}, paramLabel = "SEED", description = "Seed for payloads and buffer order (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = {"-p", "--packet-size"}, paramLabel = "BYTES", description = "Bytes per packet, 1..65536 (default: ${DEFAULT-VALUE}).")
    int packetSize = 1500;

    @Option(names = "--strategy", paramLabel = "S", description = "both, locked or flushlist (default: ${DEFAULT-VALUE}).")
    StrategyChoice strategy = StrategyChoice.both;

    @Option(names = "--batch-coalesce", paramLabel = "N", description = "Interrupting wait descriptor every N unloaded entries of a batch (default: ${DEFAULT-VALUE}).")
    int batchCoalesce = 100;

    @Option(names = "--qi-size", paramLabel = "QS", description = "Invalidation queue of 2^QS pages, 0..7 (default: ${DEFAULT-VALUE}).")
    int qs = 3;

    @Option(names = "--descriptor-latency", paramLabel = "NS", description = "Extra hardware time per descriptor, ns (default: ${DEFAULT-VALUE}).")
    long descriptorLatency = 0;

    @Option(names = "--spin", paramLabel = "NS", description = "How long a contended mutex spins before blocking, ns (default: ${DEFAULT-VALUE}).")
    long spinNanos = 10_000;

    @Option(names = "--iotlb-entries", paramLabel = "N", description = "IOTLB slots, a power of two (default: ${DEFAULT-VALUE}).")
    int iotlbEntries = 512;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private void validate() {
        CommandLine cl = spec.commandLine();
        if (threads < 1 || threads > 256) {
            throw new CommandLine.ParameterException(cl, "--threads must be 1..256, got " + threads);
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new CommandLine.ParameterException(cl, "--duration must be positive");
        }
        if (packetSize < 1 || packetSize > WorkloadConfig.MAX_PACKET) {
            throw new CommandLine.ParameterException(cl, "--packet-size must be 1..65536 bytes, got " + packetSize);
        }
        if (batchCoalesce < 1) {
            throw new CommandLine.ParameterException(cl, "--batch-coalesce must be >= 1, got " + batchCoalesce);
        }
        if (qs < 0 || qs > 7) {
            throw new CommandLine.ParameterException(cl, "--qi-size must be 0..7, got " + qs);
        }
        if (descriptorLatency < 0) {
            throw new CommandLine.ParameterException(cl, "--descriptor-latency must be >= 0 ns, got " + descriptorLatency);
        }
        if (spinNanos < 0) {
            throw new CommandLine.ParameterException(cl, "--spin must be >= 0 ns, got " + spinNanos);
        }
        if (iotlbEntries < 1 || Integer.bitCount(iotlbEntries) != 1) {
            throw new CommandLine.ParameterException(cl, "--iotlb-entries must be a power of two, got " + iotlbEntries);
        }
    }

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        WorkloadConfig wc = new WorkloadConfig(threads, warmup, duration, packetSize, seed);
        List<FlushStrategy> order = switch (strategy) {
            case both -> List.of(FlushStrategy.LOCKED, FlushStrategy.FLUSHLIST);
            case locked -> List.of(FlushStrategy.LOCKED);
            case flushlist -> List.of(FlushStrategy.FLUSHLIST);
        };
        boolean showProgress = warmup.plus(duration).toMillis() > 3000;
        List<RunResult> results = new ArrayList<>();
        for (FlushStrategy s : order) {
            MachineConfig mc = new MachineConfig(s, qs, iotlbEntries, 4, descriptorLatency, spinNanos,
                    batchCoalesce, 256 << 20);
            ProgressListener progress = showProgress ? (phase, el, total, packets) -> {
                err.printf(Locale.ROOT, "[%s] %s %.0f/%.0f s, %d packets%n", s.cliName(), phase, el, total, packets);
                err.flush();
            } : ProgressListener.NONE;
            RunResult r;
            try (SimMachine m = new SimMachine(mc)) {
                r = new TcpMaerts(m, wc).run(progress);
            }
            results.add(r);
            out.print(RunReport.format(r));
            out.println();
            out.flush();
        }
        if (results.size() == 2) {
            out.println(RunReport.comparison(results.get(0), results.get(1)));
        }
        out.flush();
        boolean clean = results.stream().allMatch(RunResult::clean);
        if (!clean) {
            err.println("iommu-sim: a run FAILED its end-of-run checks (see FAILED lines above)");
        }
        return clean ? 0 : 1;
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
            commandLine.getErr().println("iommu-sim: " + ex);
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
