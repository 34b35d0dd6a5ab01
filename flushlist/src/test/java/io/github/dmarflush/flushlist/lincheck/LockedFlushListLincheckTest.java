package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.LockedFlushList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pre-2022 baseline {@link LockedFlushList} is linearizable to {@link FifoSpec} under
 * the same contract and the same scenarios as {@link ZombieHeadFlushListLincheckTest}.
 */
@Tag("lincheck")
public class LockedFlushListLincheckTest extends FlushListModel {

    public LockedFlushListLincheckTest() {
        super(Impl.LOCKED, ModelParts.LIBRARY);
    }

    @Test
    void modelChecking() {
        FlushListScenarios.modelChecking().check(getClass());
    }

    @Test
    void stress() {
        FlushListScenarios.stress().check(getClass());
    }
}
