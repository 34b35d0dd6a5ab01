package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.workload.RxRing;
import java.util.ArrayDeque;

/**
 * One NIC receive queue in virtual time: its ring of buffers, which slots the NIC owns
 * (posted, waiting for a frame), and which it has filled (waiting for the receive task). The
 * NIC's DMA into a slot goes through the IOMMU; the first fault is kept.
 *
 * <p>Not thread-safe: it lives on the simulation's one host thread.
 */
final class RxQueue {

    final int index;
    final RxRing ring;
    final Nic nic;
    private final ArrayDeque<Integer> posted = new ArrayDeque<>();
    private final ArrayDeque<Integer> filled = new ArrayDeque<>();
    /** Called when a frame lands in a queue whose task may be asleep. */
    private final Runnable onFrame;
    long faults;
    DmaFault firstFault;

    RxQueue(int index, RxRing ring, Nic nic, Runnable onFrame) {
        this.index = index;
        this.ring = ring;
        this.nic = nic;
        this.onFrame = onFrame;
        nic.attach(this);
    }

    boolean hasPosted() {
        return !posted.isEmpty();
    }

    /** Gives slot {@code s}, loaded, to the NIC. */
    void post(int s) {
        posted.add(s);
        nic.posted();
    }

    /** The NIC writes the next frame into the oldest posted slot. */
    void receiveNext() {
        int s = posted.poll();
        DmaFault f = ring.receive(s);
        if (f != null && faults++ == 0) {
            firstFault = f;
        }
        filled.add(s);
        onFrame.run();
    }

    /** @return filled slots waiting for the receive task */
    int filled() {
        return filled.size();
    }

    /** @return the oldest filled slot, taken from the queue */
    int takeFilled() {
        return filled.poll();
    }

    /** @return the oldest posted slot, taken back from the NIC (teardown), or -1 */
    int takePosted() {
        Integer s = posted.poll();
        return s == null ? -1 : s;
    }
}
