package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.lincheck.QiProtocolModel.Start;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The QI wakeup protocol of the library ({@code QiSequencer} with no sleep timeout, {@code
 * QiTask}, {@code ZombieHeadFlushList}) under Lincheck: no waiter hangs, nothing is
 * released before the hardware completed it, nothing lingers after the last QI task pass.
 * Model checking from both starting points, across the sign bit and across the
 * 0xFFFFFFFF wrap, and one stress run.
 */
@Tag("lincheck")
class QiProtocolLincheckTest {

    /** The library, sequence numbers crossing 0x7FFFFFFF to 0x80000000. */
    public static class AcrossSignBit extends QiProtocolModel {
        public AcrossSignBit() {
            super(ModelParts.LIBRARY, Start.SIGN_BIT);
        }
    }

    /** The library, sequence numbers crossing the 0xFFFFFFFF wrap into a new generation. */
    public static class AcrossWrap extends QiProtocolModel {
        public AcrossWrap() {
            super(ModelParts.LIBRARY, Start.WRAP);
        }
    }

    @Test
    void modelCheckingAcrossSignBit() {
        QiProtocolScenarios.modelChecking(Start.SIGN_BIT).check(AcrossSignBit.class);
    }

    @Test
    void modelCheckingAcrossWrap() {
        QiProtocolScenarios.modelChecking(Start.WRAP).check(AcrossWrap.class);
    }

    @Test
    void stressAcrossWrap() {
        QiProtocolScenarios.stress(Start.WRAP).check(AcrossWrap.class);
    }
}
