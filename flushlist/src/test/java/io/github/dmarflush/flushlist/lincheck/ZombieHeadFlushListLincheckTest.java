package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ZombieHeadFlushList} is linearizable to {@link FifoSpec} under its contract
 * (producers under the unit lock, one consumer, one hardware).
 */
@Tag("lincheck")
public class ZombieHeadFlushListLincheckTest extends FlushListModel {

    public ZombieHeadFlushListLincheckTest() {
        super(Impl.ZOMBIE_HEAD, ModelParts.LIBRARY);
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
