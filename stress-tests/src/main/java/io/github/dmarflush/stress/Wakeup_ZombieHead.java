package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.stress.support.WakeupScenario;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Issue test 4 with the QI task draining the zombie-head list: a synchronous waiter against the
 * hardware completing its wait descriptor and the QI task waking waiters (see
 * {@link WakeupScenario}). Result: {@code (sleeps, sleeps that ran out their timeout after
 * the QI task pass had finished, sleeps that ran out their timeout before it finished)}.
 *
 * <p>The waiter's sleep timeout is 5 s ({@code -Ddmarflush.sleepTimeoutMs}). Catches M7 (the
 * task wakes without the unit lock, waiters on an msleep-style sleep queue) and, in a C2
 * stress configuration, M6 (plain {@code waiters++} after the tail advance); see the
 * README's variant table.
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t Wakeup_ZombieHead
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *                      RESULT    SAMPLES     FREQ       EXPECT  DESCRIPTION
 *                     0, 0, 0    192,871    1.92%   Acceptable  The status write came before the waiter's check: it never...
 *                     1, 0, 0  9,839,660   98.08%   Acceptable  The waiter slept and the QI task's wakeup ended the sleep.
 *      [0-9]+, 0, [1-9][0-9]*          0    0.00%  Interesting  Not a lost wakeup: a sleep ran out before the hardware/ta...
 * [0-9]+, [1-9][0-9]*, [0-9]+          0    0.00%    Forbidden  Lost wakeup: a sleep ran out its timeout although the QI ...
 *                 [2-9], 0, 0          0    0.00%   Acceptable  A spurious wakeup, then a sleep that the QI task's wakeup...
 * </pre>
 */
@JCStressTest
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE,
        desc = "The status write came before the waiter's check: it never slept.")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE,
        desc = "The waiter slept and the QI task's wakeup ended the sleep.")
@Outcome(id = "[2-9], 0, 0", expect = ACCEPTABLE,
        desc = "A spurious wakeup, then a sleep that the QI task's wakeup ended.")
@Outcome(id = "[0-9]+, [1-9][0-9]*, [0-9]+", expect = FORBIDDEN,
        desc = "Lost wakeup: a sleep ran out its timeout although the QI task pass that should"
                + " have woken it had finished.")
@Outcome(id = "[0-9]+, 0, [1-9][0-9]*", expect = ACCEPTABLE_INTERESTING,
        desc = "Not a lost wakeup: a sleep ran out before the hardware/task actor had finished its"
                + " pass (that thread was descheduled for longer than the timeout); its wakeup was still to come.")
@Outcome(expect = FORBIDDEN, desc = "Unexpected state.")
@State
public class Wakeup_ZombieHead extends WakeupScenario {

    public Wakeup_ZombieHead() {
        super(true);
    }

    @Actor
    public void waiterActor(III_Result r) {
        waiter(r);
    }

    @Actor
    public void hardwareAndQiTask() {
        hardwareAndTask();
    }
}
