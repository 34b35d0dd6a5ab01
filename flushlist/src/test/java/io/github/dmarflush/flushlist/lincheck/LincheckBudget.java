package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.qi.GenSeq;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/**
 * The bounds of every Lincheck run in this package, and the one switch that raises them.
 *
 * <p>Lincheck's defaults (100 iterations of 10,000 invocations) run for a very long time on
 * a 2-core machine, so every run sets iterations, invocations, threads and actors itself,
 * through {@link #scale}. {@code -Dlincheck.mode=long} (or the Maven profile {@code
 * lincheck-long}) selects the long numbers.
 */
final class LincheckBudget {

    /** True when the system property {@code lincheck.mode} is {@code long}. */
    static final boolean LONG = "long".equals(System.getProperty("lincheck.mode", "quick"));

    private LincheckBudget() {
    }

    /**
     * @param quick the number for the default run (the README's test command)
     * @param longRun the number for {@code -Dlincheck.mode=long}
     * @return the one in force
     */
    static int scale(int quick, int longRun) {
        return LONG ? longRun : quick;
    }

    /**
     * Tells the model checker that the test harness's own bookkeeping (the element pool,
     * the item lists, the ring's writes, GenSeq's arithmetic) has no interleavings worth
     * exploring: each such call runs without a thread switch inside it. Switches still
     * happen between those calls and everywhere in the library and in the lock. This
     * halves the cost of an invocation.
     *
     * @param o the options
     * @return {@code o}
     */
    static ModelCheckingOptions harnessIsAtomic(ModelCheckingOptions o) {
        return o.addGuarantee(ManagedStrategyGuaranteeKt.forClasses(
                        EntryPool.class.getName(), Items.class.getName(), GenSeq.class.getName())
                        .allMethods().treatAsAtomic())
                .addGuarantee(ManagedStrategyGuaranteeKt.forClasses(
                        QiHardware.class.getName(), ListHardware.class.getName())
                        .methods("ensure", "emitWaitDescriptor", "lastEmitted", "lastIndexOf", "completed")
                        .treatAsAtomic());
    }
}
