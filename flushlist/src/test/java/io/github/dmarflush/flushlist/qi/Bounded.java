package io.github.dmarflush.flushlist.qi;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * Bounded waits for tests of code that spins or sleeps. The library's spins
 * ({@code emitWaitSeq}'s wrap, {@code waitForSeq(nowait)}) do not look at the thread's
 * interrupt status, as a kernel spin with the lock held does not, so a same-thread JUnit
 * time-out cannot stop them: a broken version would hang the build. Each helper here gives
 * up after {@link #LIMIT} and fails with a message that names the behaviour that did not
 * happen. A call that runs out leaves its thread spinning (a daemon thread, gone with the
 * JVM).
 */
final class Bounded {

    /** Far longer than any of these steps takes when the code is right (microseconds). */
    static final Duration LIMIT = Duration.ofSeconds(5);

    private Bounded() {
    }

    /**
     * Runs {@code call} on a separate thread and fails if it has not returned within
     * {@link #LIMIT}.
     *
     * @param whatHangs what a time-out means, e.g. "the wrap is still spinning"
     */
    static <T> T returnsWithin(String whatHangs, ThrowingSupplier<T> call) {
        return assertTimeoutPreemptively(LIMIT, call, whatHangs);
    }

    /** Polls {@code condition} until it holds; fails with {@code never} after {@link #LIMIT}. */
    static void await(String never, BooleanSupplier condition) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(never + " (waited " + LIMIT.toSeconds() + " s)");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting: " + never);
            }
        }
    }

    /**
     * Polls {@code condition} under {@code lock} until it holds. A thread that sleeps on the
     * lock's condition has released the lock, so seeing a sleep count under the lock means
     * the sleeper is on the condition queue by then.
     */
    static void awaitUnder(Lock lock, String never, BooleanSupplier condition) {
        await(never, () -> {
            try {
                if (!lock.tryLock(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    fail("the unit lock was not released within " + LIMIT.toSeconds() + " s, while waiting: "
                            + never);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting: " + never);
            }
            try {
                return condition.getAsBoolean();
            } finally {
                lock.unlock();
            }
        });
    }

    /** Joins {@code t} for at most {@link #LIMIT}; true if it ended. */
    static boolean joined(Thread t) throws InterruptedException {
        t.join(LIMIT.toMillis());
        return !t.isAlive();
    }
}
