package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.repro.Calibration;
import io.github.dmarflush.sim.repro.FreeBsdReference;
import io.github.dmarflush.sim.repro.ModelState;
import io.github.dmarflush.sim.repro.Observables;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code iommu-sim calibrate}: fits the cost model's unmeasured times to FreeBSD's state B,
 * then the two sections only state A has to A's rows of them ({@link Calibration}), and prints
 * the fit and the fitted cost file. State C is never looked at.
 *
 * <p>Exit codes: 0 success; 2 a wrong option, an unreadable or malformed cost file, or output
 * that cannot be written.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, version = "iommu-sim 0.1.0", sortOptions = false,
        description = "Fits the cost model's hold times, receive-path times, engine time, interrupt latency and PAUSE "
                + "time to FreeBSD's state B (then state A's two busdma sections to A), with CMA-ES over virtual-time "
                + "runs, and prints the fit and the fitted cost file. FreeBSD's state C is never used.")
public final class CalibrateCommand implements Callable<Integer> {

    @CommandLine.Mixin
    CostsOption costs = new CostsOption();

    @Option(names = "--evaluations", paramLabel = "N", description = "Model runs for the fit to B, 10..100000 "
            + "(the fit to A takes a tenth as many) (default: ${DEFAULT-VALUE}).")
    int evaluations = 1500;

    @Option(names = "--window", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Simulated window of each model run (default: 400ms).")
    Duration window = Duration.ofMillis(400);

    @Option(names = "--cpus", paramLabel = "N", description = "Simulated CPUs, 2..256 (default: ${DEFAULT-VALUE}).")
    int cpus = 8;

    @Option(names = {"-s", "--seed"}, paramLabel = "SEED", description = "Seeds CMA-ES (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--out", paramLabel = "FILE", description = "Write the fitted cost file here (default: stdout).")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    @Override
    public Integer call() {
        IommuSim.refuseOptionsBefore(spec);
        if (evaluations < 10 || evaluations > 100_000) {
            throw bad("--evaluations must be 10..100000, got " + evaluations);
        }
        if (cpus < 2 || cpus > 256) {
            throw bad("--cpus must be 2..256, got " + cpus);
        }
        if (window.isZero() || window.isNegative() || window.compareTo(Duration.ofMinutes(1)) > 0) {
            throw bad("--window must be more than 0 and at most 1m");
        }
        if (out != null && IommuSim.unwritable("--out", out) != null) {
            throw bad(IommuSim.unwritable("--out", out));
        }
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CostModel start;
        try {
            start = costs.load();
        } catch (CostModel.CostFileException e) {
            return IommuSim.usageError(err, e.getMessage());
        }
        FreeBsdReference ref = FreeBsdReference.load();
        ModelState.Setup setup = new ModelState.Setup(cpus, Duration.ofMillis(50), window, 42);
        String command = ("iommu-sim " + String.join(" ", spec.commandLine().getParseResult().originalArgs()))
                .strip();
        long t0 = System.nanoTime();
        double[] best = {Double.MAX_VALUE};
        Calibration.Fit b;
        Calibration.Fit a;
        try {
            b = Calibration.stateB(ref, start, setup).fit(evaluations, seed,
                "fit to FreeBSD's state B (" + command + ")", f -> {
                    if (f.objective() < best[0]) {
                        best[0] = f.objective();
                        err.printf(Locale.ROOT, "iommu-sim: B, evaluation %d: objective %.4f (%.0f s)%n",
                                f.evaluations(), f.objective(), (System.nanoTime() - t0) / 1e9);
                        err.flush();
                    }
                });
            a = Calibration.stateA(ref, b.costs(), setup).fit(Math.max(10, evaluations / 10), seed,
                    "fit to FreeBSD's state A's busdma rows (" + command + ")", f -> { });
        } catch (IllegalArgumentException e) { // a model its cost file makes impossible
            return IommuSim.usageError(err, e.getMessage());
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "# Cost model fitted by: %s%n# state B: objective %.4f after %d runs; "
                + "state A's busdma sections: objective %.4f after %d runs%n", command, b.objective(),
                b.evaluations(), a.objective(), a.evaluations()));
        appendFigures(sb, "B", b);
        appendFigures(sb, "A (its busdma rows)", a);
        String file = sb + a.costs().format();
        if (out != null) {
            try {
                Files.writeString(out, file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return IommuSim.usageError(err, "cannot write --out " + out + ": " + IommuSim.why(e));
            }
            err.println("iommu-sim: wrote " + out);
        } else {
            stdout.print(file);
        }
        stdout.flush();
        if (stdout.checkError()) {
            return IommuSim.usageError(err, "cannot write to standard output");
        }
        return 0;
    }

    private static void appendFigures(StringBuilder sb, String state, Calibration.Fit fit) {
        sb.append(String.format(Locale.ROOT, "# %s: %-52s %12s %12s %8s%n", state, "figure", "FreeBSD", "model",
                "ratio"));
        for (Observables.Figure f : fit.figures()) {
            sb.append(String.format(Locale.ROOT, "# %s: %-52s %12.1f %12.1f %8.3f%n", state, f.name(), f.freebsd(),
                    f.model(), f.ratio()));
        }
    }
}
