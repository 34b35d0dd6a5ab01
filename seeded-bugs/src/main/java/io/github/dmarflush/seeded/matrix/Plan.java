package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.seeded.Variant;
import java.util.List;

/**
 * What each cell of the matrix runs, which cells do not apply (and why), and the fast subset
 * that {@code mvn verify} runs.
 */
final class Plan {

    private Plan() {
    }

    /**
     * @param c a column
     * @param v a variant
     * @return why the check does not apply to the variant, or null if it does
     */
    static String notApplicable(Column c, Variant v) {
        switch (c) {
            case JCSTRESS:
                if (v == Variant.M9) {
                    return "the stress tests advance IQT outside the unmap steps, so M9's order is not in them";
                }
                return null;
            case SIM:
                if (v == Variant.M2L || v == Variant.M9) {
                    return "the seam (UnitHooks) replaces list, processed test and task, not the driver's unmap path";
                }
                if (v.part() == Variant.Part.SEQUENCER) {
                    return "the seam does not replace the sequencer, and a run starts at (0, 1), far from the sign bit and the wrap";
                }
                return null;
            default:
                return null;
        }
    }

    /**
     * @param v a variant
     * @return the jcstress tests (a regex for {@code -t}) of its cell
     */
    static String jcstressTests(Variant v) {
        String tests = switch (v) {
            case CORRECT -> "Publication_ZombieHead|RecyclingRace_ZombieHead|DrainVsHardware_ZombieHead"
                    + "|Wakeup_ZombieHead|Wraparound|IwcWindow_ZombieHead";
            case M1 -> "RecyclingRace_ZombieHead";
            case M2L, M2P -> "Publication_ZombieHead";
            case M3, M4 -> "DrainVsHardware_ZombieHead";
            case M5, FREEBSD_WRAP -> "Wraparound";
            case M6, M7 -> "Wakeup_ZombieHead";
            case M8 -> "IwcWindow_ZombieHead";
            case M9 -> throw new IllegalArgumentException("no jcstress test for " + v);
        };
        return "^io\\.github\\.dmarflush\\.stress\\.(" + tests + ")$";
    }

    /**
     * A jcstress cell's time limit: a test takes about a minute in quick mode without split
     * compilation here, and a variant that hangs a test must not hold the matrix for long.
     *
     * @param v a variant
     * @return the limit, seconds
     */
    static long jcstressLimitSeconds(Variant v) {
        int tests = jcstressTests(v).split("\\|").length;
        return 120 + 180L * tests;
    }

    /**
     * @param v a variant
     * @return JVM options for jcstress's test JVMs besides the variant
     */
    static String jcstressJvmArgs(Variant v) {
        // A lost wakeup costs one sleep timeout: 100 ms instead of 5 s.
        return v == Variant.M7 || v == Variant.M6 ? "-Ddmarflush.sleepTimeoutMs=100" : "";
    }

    /**
     * @param v a variant
     * @return the TLC models of its cell ({@code tla/src/tla/<name>.cfg})
     */
    static List<String> tlcModels(Variant v) {
        return switch (v) {
            case CORRECT -> List.of("Main", "Wakeup", "WrapFixed", "WrapSyncFixed");
            case M2L -> List.of("M2");
            case FREEBSD_WRAP -> List.of("WrapFreeBSD", "WrapSyncFreeBSD");
            default -> List.of(v.name());
        };
    }

    /**
     * The subset that {@code mvn verify} runs: the unit checks on every row, which catch
     * every variant but M2P; TLC on M2P (its model lets the plain link store overtake the
     * entry's (gen, seq) store, as the Java memory model allows); the simulator on the correct
     * row and on the two list variants its DMA checker catches. TLC's other models and the
     * correct row of jcstress and Lincheck already run in the tla, stress-tests and flushlist
     * modules.
     *
     * @param c a column
     * @param v a variant
     * @return whether the cell is in the fast subset
     */
    static boolean fast(Column c, Variant v) {
        return switch (c) {
            case UNIT -> true;
            case TLC -> v == Variant.M2P;
            case SIM -> v == Variant.CORRECT || v == Variant.M1 || v == Variant.M3;
            default -> false;
        };
    }

    /**
     * @param c a column
     * @return the parent's time limit for one cell of it, seconds
     */
    static long timeLimitSeconds(Column c) {
        return switch (c) {
            case UNIT -> 120;
            case SIM -> 180;
            case LINCHECK -> 900;
            case TLC -> 300;
            case JCSTRESS -> 1200; // see jcstressLimitSeconds
        };
    }
}
