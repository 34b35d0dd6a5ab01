package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.vtime.Event;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.ArrayList;
import java.util.List;

/**
 * A NIC on one wire in virtual time: frames arrive one after another at the line rate, each
 * into the next receive queue (round robin) that has a buffer posted, where the NIC writes it
 * by DMA through the IOMMU. A queue with no buffer posted gets nothing: its sender is held back
 * (TCP's flow control, without the losses), so a receiver slower than the wire sets the rate.
 *
 * <p>Not thread-safe: it lives on the simulation's one host thread.
 */
final class Nic {

    private final EventLoop loop;
    /** Time on the wire per frame, ps. */
    private final long framePicos;
    private final List<RxQueue> queues = new ArrayList<>();
    private int next;
    /** When the wire can finish the next frame, ps. */
    private long wireFreePicos;
    private RxQueue target;
    private long targetPicos;
    private boolean stopped;
    private final Event arrival = new Event() {
        @Override
        protected void fire() {
            arrive();
        }
    };

    /**
     * @param loop the simulated clock
     * @param frameBytes bytes on the wire per frame
     * @param lineMbps the line rate, Mbit/s
     */
    Nic(EventLoop loop, long frameBytes, long lineMbps) {
        this.loop = loop;
        if (lineMbps < 1) {
            throw new IllegalArgumentException("line rate must be >= 1 Mbit/s, got " + lineMbps);
        }
        this.framePicos = frameBytes * 8 * 1_000_000 / lineMbps;
    }

    /** @return ps per frame on the wire */
    long framePicos() {
        return framePicos;
    }

    void attach(RxQueue q) {
        queues.add(q);
    }

    /** A buffer was posted to {@code q}: the wire may have somewhere to deliver. */
    void posted() {
        if (!stopped && !arrival.isScheduled()) {
            scheduleNext();
        }
    }

    /** No more frames arrive. */
    void stop() {
        stopped = true;
        loop.cancel(arrival);
    }

    private void scheduleNext() {
        for (int k = 0; k < queues.size(); k++) {
            RxQueue q = queues.get((next + k) % queues.size());
            if (q.hasPosted()) {
                next = (next + k + 1) % queues.size();
                target = q;
                targetPicos = Math.max(loop.now() * 1000, wireFreePicos);
                // the frame's last bit arrives one frame time after the wire is free
                targetPicos += framePicos;
                loop.schedule(arrival, (targetPicos + 999) / 1000);
                return;
            }
        }
    }

    private void arrive() {
        wireFreePicos = targetPicos;
        target.receiveNext();
        scheduleNext();
    }
}
