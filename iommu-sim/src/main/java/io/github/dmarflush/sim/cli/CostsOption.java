package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.cost.CostModel;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --costs} option of the virtual-time commands, and loading the model it names. */
final class CostsOption {

    @Option(names = "--costs", paramLabel = "FILE",
            description = "virtual: the cost model file; calibrate starts from it (default: the built-in " + CostModel.BUILT_IN + ").")
    Path file;

    /**
     * @return the model the option names, or the built-in one
     * @throws CostModel.CostFileException if the file cannot be read or is malformed
     */
    CostModel load() throws CostModel.CostFileException {
        return file == null ? CostModel.builtIn() : CostModel.load(file);
    }
}
