package io.github.dmarflush.sim.hw;

import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The real-thread clock's engine driver: a host thread ({@code <unit> qi engine}) that executes
 * descriptors as soon as they are published, busy-waiting each descriptor's latency. It polls
 * an empty queue for {@value #IDLE_POLL_NANOS} ns and then parks; {@link #kick()} wakes it.
 */
public final class EngineThread implements EngineDriver {

    /** How long the engine polls an empty queue before it parks, ns. */
    private static final long IDLE_POLL_NANOS = 50_000;

    private final QiEngine engine;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean idle;

    /**
     * Starts the thread.
     *
     * @param engine the engine
     * @param name the unit's name
     */
    public EngineThread(QiEngine engine, String name) {
        this.engine = engine;
        this.thread = new Thread(this::loop, name + " qi engine");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void kick() {
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    private void loop() {
        SplittableRandom jitter = engine.newJitter();
        long emptySince = 0;
        while (running) {
            if (!engine.ready()) {
                // Poll for a while before parking: waking a parked thread costs more than the
                // descriptors it would process, and a busy host delays the wake-up further.
                long now = System.nanoTime();
                if (emptySince == 0) {
                    emptySince = now;
                }
                if (now - emptySince < IDLE_POLL_NANOS) {
                    Thread.onSpinWait();
                    continue;
                }
                idle = true;
                // Re-check after announcing idleness: a writer that made work before seeing
                // idle is caught here; one that makes it after will unpark us.
                if (running && !engine.ready()) {
                    LockSupport.parkNanos(this, 1_000_000L);
                }
                idle = false;
                continue;
            }
            emptySince = 0;
            long latency = engine.nextLatency(jitter);
            if (latency > 0) {
                long until = System.nanoTime() + latency;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            engine.executeNext();
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
