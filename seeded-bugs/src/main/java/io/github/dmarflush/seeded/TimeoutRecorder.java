package io.github.dmarflush.seeded;

/**
 * Implemented by a harness's unit lock that counts sleeps ended by their timeout (the
 * jcstress tests' {@code UnitLock}); {@link MsleepLock}'s condition reports to it, as the
 * lock's own condition does.
 */
public interface TimeoutRecorder {

    /** A timed sleep ran out with no wakeup sent during it. */
    void recordTimedOutWait();
}
