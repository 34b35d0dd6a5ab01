package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.stress.support.IwcWindowScenario;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue test 6 on the zombie-head list: the ICS.IWC window of {@code dmar_qi_task} (see
 * {@link IwcWindowScenario}). The hardware completes entry B while the task pass for A's
 * interrupt runs. Result: {@code (B released by this pass, interrupts raised by B)}.
 *
 * <p>Catches M8 (no second drain after clearing IWC).
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t IwcWindow_ZombieHead
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 * RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *   0, 0           0    0.00%   Forbidden  B completed with IWC still set, so no interrupt will come...
 *   0, 1  20,039,175   30.86%  Acceptable  B completed after this pass's last drain; its own interru...
 *   1, 0  42,995,015   66.21%  Acceptable  B completed while IWC was still set (no interrupt); this ...
 *   1, 1   1,907,689    2.94%  Acceptable  B completed after IWC was cleared and raised an interrupt...
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE,
        desc = "B completed while IWC was still set (no interrupt); this pass released it.")
@Outcome(id = "1, 1", expect = ACCEPTABLE,
        desc = "B completed after IWC was cleared and raised an interrupt; this pass released it anyway.")
@Outcome(id = "0, 1", expect = ACCEPTABLE,
        desc = "B completed after this pass's last drain; its own interrupt runs the task again.")
@Outcome(id = "0, 0", expect = FORBIDDEN,
        desc = "B completed with IWC still set, so no interrupt will come for it, and this pass"
                + " did not release it: it lingers until an unrelated interrupt (no drain after clearing IWC).")
@Outcome(expect = FORBIDDEN, desc = "Unexpected state.")
@State
public class IwcWindow_ZombieHead extends IwcWindowScenario {

    public IwcWindow_ZombieHead() {
        super(true);
    }

    @Actor
    public void qiTask() {
        task();
    }

    @Actor
    public void hardwareActor() {
        hardware();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        report(r);
    }
}
