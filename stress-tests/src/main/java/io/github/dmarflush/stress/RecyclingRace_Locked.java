package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.stress.support.RecyclingScenario;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Issue test 2 on the locked baseline list: enqueue racing drain with a recycling pool (see
 * {@link RecyclingScenario} for the set-up and the checks). Result:
 * {@code (released, in order, pooled-element violations, elements reused from the pool)}.
 *
 * <p>The locked list may retire its last entry (it unlinks it under the lock first), so
 * the tail check does not apply; the pooled-link, id and ordering checks do.
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t RecyclingRace_Locked
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *                            RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *                        4, 1, 0, 1  35,281,706   98.48%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 2     340,993    0.95%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 3     203,149    0.57%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 4         175   &lt;0.01%  Acceptable  All 4 entries delivered once, in order; no element writte...
 * [0-9]+, [01], [1-9][0-9]*, [0-9]+           0    0.00%   Forbidden  An element in the pool was written into, handed back twic...
 * </pre>
 */
@JCStressTest
@Outcome(id = "4, 1, 0, [0-4]", expect = ACCEPTABLE,
        desc = "All 4 entries delivered once, in order; no element written while pooled."
                + " The last number is how many elements came back from the pool.")
@Outcome(id = "[0-9]+, [01], [1-9][0-9]*, [0-9]+", expect = FORBIDDEN,
        desc = "An element in the pool was written into, handed back twice, or released:"
                + " the tail (or a still-linked element) was recycled.")
@Outcome(expect = FORBIDDEN,
        desc = "Entries lost, duplicated or out of order.")
@State
public class RecyclingRace_Locked extends RecyclingScenario {

    public RecyclingRace_Locked() {
        super(false);
    }

    @Actor
    public void producer() {
        produce();
    }

    @Actor
    public void consumer() {
        consume();
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        report(r);
    }
}
