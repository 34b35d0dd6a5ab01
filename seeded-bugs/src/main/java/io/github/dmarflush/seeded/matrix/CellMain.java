package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.seeded.Variant;
import java.util.List;

/**
 * The child JVM of one in-process cell (unit, lincheck, sim): {@code CellMain COLUMN VARIANT}.
 * Prints what it sees, then one last line {@code RESULT CAUGHT|PASSED <detail>}, and exits 0;
 * anything else (an exception, a crash, a timeout in the parent) makes the cell an error.
 * The variant must also be this JVM's {@code -Ddmarflush.variant} (Lincheck reads it there).
 */
public final class CellMain {

    private CellMain() {
    }

    /**
     * @param args the column and the variant
     * @throws Exception if the cell cannot run
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: CellMain COLUMN VARIANT");
        }
        Column column = Column.byName(args[0]);
        Variant v = Variant.byName(args[1]);
        if (v != Variant.selected()) {
            throw new IllegalArgumentException("-D" + Variant.PROPERTY + " must be " + v);
        }
        List<String> failures = switch (column) {
            case UNIT -> UnitChecks.runAll(v);
            case LINCHECK -> LincheckCells.run();
            case SIM -> SimCheck.run(v);
            default -> throw new IllegalArgumentException(column + " runs in the parent");
        };
        for (String f : failures) {
            System.out.println("[" + column.label() + "] " + f);
        }
        String detail = failures.isEmpty() ? "" : failures.get(0)
                + (failures.size() > 1 ? " (+" + (failures.size() - 1) + " more)" : "");
        System.out.println("RESULT " + (failures.isEmpty() ? "PASSED" : "CAUGHT") + " " + detail.replace('\n', ' '));
        System.out.flush();
        System.exit(0); // a broken variant may leave threads behind
    }
}
