package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.report.ReproductionReport;
import io.github.dmarflush.sim.repro.FreeBsdReference;
import io.github.dmarflush.sim.repro.ModelState;
import io.github.dmarflush.sim.repro.Reproduction;
import io.github.dmarflush.sim.workload.RunResult;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code iommu-sim reproduce}: runs FreeBSD's measured setup (one {@code TCP_MAERTS} stream
 * on a 10 GbE NIC) as states A, B and C in virtual time and prints the model's figures beside
 * FreeBSD's, then one line per headline figure.
 *
 * <p>Exit codes: 0 success; 1 a run failed its end-of-run checks; 2 a wrong option, an
 * unreadable or malformed cost file, or output that cannot be written.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true, version = "iommu-sim 0.1.0", sortOptions = false,
        description = "Runs FreeBSD's netperf TCP_MAERTS setup in virtual time as state A (before the busdma locking "
                + "change), B (the locked flush list) and C (the lock-free flush list) and prints the model's lockstat "
                + "figures and throughput beside FreeBSD's published ones, then the headline figures with model/FreeBSD.")
public final class ReproduceCommand implements Callable<Integer> {

    @Option(names = "--states", paramLabel = "S[,S...]", split = ",",
            description = "Which states: A, B, C (default: A,B,C).")
    List<ModelState> states = List.of(ModelState.A, ModelState.B, ModelState.C);

    @Option(names = "--cpus", paramLabel = "N", description = "Simulated CPUs of the machine under test, 2..256; "
            + "FreeBSD does not say (default: ${DEFAULT-VALUE}).")
    int cpus = 8;

    @Option(names = {"-d", "--duration"}, paramLabel = "TIME", converter = DurationConverter.class,
            description = "Simulated window per state, like lockstat's -D 1 -l 30 (default: 30s).")
    Duration duration = Duration.ofSeconds(30);

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Simulated time before the window (default: 1s).")
    Duration warmup = Duration.ofSeconds(1);

    @Option(names = {"-s", "--seed"}, paramLabel = "SEED", description = "Seeds the payloads and the variation of every simulated time (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @CommandLine.Mixin
    CostsOption costs = new CostsOption();

    @Option(names = "--json", description = "Print one JSON document instead of the text report.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    @Override
    public Integer call() {
        IommuSim.refuseOptionsBefore(spec);
        if (cpus < 2 || cpus > 256) {
            throw bad("--cpus must be 2..256 (the receive task and the QI task each need a CPU), got " + cpus);
        }
        if (duration.isZero() || duration.isNegative() || duration.compareTo(Duration.ofHours(1)) > 0) {
            throw bad("--duration must be more than 0 and at most 1h of simulated time");
        }
        if (warmup.isNegative() || warmup.compareTo(Duration.ofHours(1)) > 0) {
            throw bad("--warmup must be 0..1h of simulated time");
        }
        if (states.isEmpty() || states.stream().distinct().count() != states.size()) {
            throw bad("--states lists a state twice or none: " + states);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CostModel model;
        try {
            model = costs.load();
        } catch (CostModel.CostFileException e) {
            return IommuSim.usageError(err, e.getMessage());
        }
        Reproduction rep = new Reproduction(FreeBsdReference.load(), model,
                new ModelState.Setup(cpus, warmup, duration, seed));
        long t0 = System.nanoTime();
        try {
            rep.run(states.stream().sorted().toList(), (s, r) -> {
                err.printf(Locale.ROOT, "iommu-sim: state %s done, %.1f s of host time so far%n", s,
                        (System.nanoTime() - t0) / 1e9);
                err.flush();
            });
        } catch (IllegalArgumentException e) { // a model its cost file makes impossible
            return IommuSim.usageError(err, e.getMessage());
        }
        String command = ("iommu-sim " + String.join(" ", spec.commandLine().getParseResult().originalArgs()))
                .strip();
        out.print(json ? ReproductionReport.json(rep, command) + "\n" : ReproductionReport.format(rep));
        out.flush();
        if (out.checkError()) {
            return IommuSim.usageError(err, "cannot write the report to standard output");
        }
        boolean clean = rep.results().values().stream().allMatch(RunResult::clean);
        if (!clean) {
            err.println("iommu-sim: a state FAILED its end-of-run checks (see FAILED lines above)");
            err.flush();
        }
        return clean ? 0 : 1;
    }
}
