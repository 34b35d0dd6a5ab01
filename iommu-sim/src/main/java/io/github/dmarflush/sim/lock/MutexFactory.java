package io.github.dmarflush.sim.lock;

import java.util.concurrent.TimeUnit;

/** Creates the driver's mutexes for one clock. */
@FunctionalInterface
public interface MutexFactory {

    /**
     * @param name the lock's name in reports ({@code dmarhw}, {@code iodom})
     * @return a new mutex
     */
    SimMutex create(String name);

    /**
     * Real locks ({@link LockstatMutex}) that spin at most {@code spinNanos} before blocking.
     *
     * @param spinNanos the spin limit, ns
     * @return the factory
     */
    static MutexFactory lockstat(long spinNanos) {
        return name -> new LockstatMutex(name, spinNanos, TimeUnit.NANOSECONDS);
    }
}
