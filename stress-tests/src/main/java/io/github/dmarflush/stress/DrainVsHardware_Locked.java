package io.github.dmarflush.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.dmarflush.stress.support.DrainVsHardwareScenario;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue test 3 on the locked baseline list: the drain against the hardware side (see
 * {@link DrainVsHardwareScenario}). Entries 0x7FFFFFFE, 0x7FFFFFFF, 0x80000000 wait; the
 * hardware writes the first two status words while the consumer drains. Result:
 * {@code (released, released before their status write)}.
 *
 * <p>Catches M3 (the drain tests the previous sequence number: one entry too many) and
 * M4 (signed comparison: {@code 0x80000000} looks smaller than {@code 0x7FFFFFFE}).
 *
 * <pre>
 * $ java -jar stress-tests/target/jcstress.jar -m quick -t DrainVsHardware_Locked
 *
 * Results across all 28 JVM configurations of this run (2-CPU machine shared with
 * other builds):
 *
 *    RESULT     SAMPLES     FREQ      EXPECT  DESCRIPTION
 *      0, 0  31,794,751   45.34%  Acceptable  The drain ran before the first status write: nothing rele...
 *      1, 0     108,047    0.15%  Acceptable  The drain saw seqHw = 0x7FFFFFFE: released the first entry.
 *      2, 0  38,222,581   54.51%  Acceptable  The drain saw seqHw = 0x7FFFFFFF: released the first two.
 * 3, [0-9]+           0    0.00%   Forbidden  Released the entry 0x80000000, whose status write never h...
 * </pre>
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "The drain ran before the first status write: nothing released.")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "The drain saw seqHw = 0x7FFFFFFE: released the first entry.")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "The drain saw seqHw = 0x7FFFFFFF: released the first two.")
@Outcome(id = "3, [0-9]+", expect = FORBIDDEN,
        desc = "Released the entry 0x80000000, whose status write never happens: its IOVA range"
                + " is reused while the IOTLB may still hold it (off by one, or signed compare).")
@Outcome(expect = FORBIDDEN,
        desc = "Released an entry whose sequence number was past the status word at that moment.")
@State
public class DrainVsHardware_Locked extends DrainVsHardwareScenario {

    public DrainVsHardware_Locked() {
        super(false);
    }

    @Actor
    public void hardwareActor() {
        hardware();
    }

    @Actor
    public void consumer(II_Result r) {
        drain(r);
    }
}
