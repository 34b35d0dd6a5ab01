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
 * Issue test 2 on the zombie-head list: enqueue racing drain with a recycling pool (see
 * {@link RecyclingScenario} for the set-up and the checks). Result:
 * {@code (released, in order, pooled-element violations, elements reused from the pool)}.
 *
 * <p>Catches M1: the drain hands back the entry it just dequeued, which is the tail when
 * the consumer has caught up; the producer then stores into it, or gets it back from the
 * pool as a new element, and entries are lost or delivered twice.
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t RecyclingRace_ZombieHead
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *                            RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *                        4, 1, 0, 1  23,851,399   93.88%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 2     754,820    2.97%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 3     772,341    3.04%  Acceptable  All 4 entries delivered once, in order; no element writte...
 *                        4, 1, 0, 4      27,018    0.11%  Acceptable  All 4 entries delivered once, in order; no element writte...
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
public class RecyclingRace_ZombieHead extends RecyclingScenario {

    public RecyclingRace_ZombieHead() {
        super(true);
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
