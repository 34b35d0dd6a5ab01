package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * One NIC receive queue's ring of buffers and what is done to a slot, as iflib's free list
 * ({@code iflib_fl_t}) with its clusters and DMA maps: the driver loads a slot's buffer
 * ({@code bus_dmamap_load} in {@code _iflib_fl_refill}), the NIC writes a packet into it by DMA
 * through the IOMMU, the driver unloads it ({@code bus_dmamap_unload} in
 * {@code rxd_frag_to_sd}) and the stack checks what arrived. Both clocks run these steps; the
 * clock decides when each happens and which locks it waits for.
 *
 * <p>Not thread-safe: one receive thread owns the ring (the NIC's writes into a slot happen
 * between that thread's load and unload of it).
 */
public final class RxRing {

    private final BusDma busdma;
    private final DmarHardware hw;
    private final PhysicalMemory memory;
    private final int rid;
    private final int packetSize;
    private final long[] buffers;
    private final BusDmaMap[] maps;
    private final long[] iova;
    private final long[] stamps;
    private final byte[] payload;
    private final int queue;
    private long sent;

    /**
     * @param busdma the device's busdma path
     * @param hw the unit the device is behind
     * @param rid the device's source id
     * @param queue the queue's index, stamped into its packets
     * @param slots buffers in the ring
     * @param packetSize bytes the NIC writes per packet
     * @param seed seeds the payload bytes
     */
    public RxRing(BusDma busdma, DmarHardware hw, int rid, int queue, int slots, int packetSize, long seed) {
        this.busdma = Objects.requireNonNull(busdma, "busdma");
        this.hw = Objects.requireNonNull(hw, "hw");
        this.memory = hw.memory();
        this.rid = rid;
        this.queue = queue;
        this.packetSize = packetSize;
        this.buffers = new long[slots];
        this.maps = new BusDmaMap[slots];
        this.iova = new long[slots];
        this.stamps = new long[slots];
        for (int i = 0; i < slots; i++) {
            buffers[i] = memory.allocate(packetSize);
            maps[i] = busdma.createMap();
        }
        SplittableRandom rnd = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (queue + 1)));
        this.payload = new byte[packetSize];
        for (int i = 0; i < packetSize; i++) {
            payload[i] = (byte) rnd.nextInt();
        }
    }

    /** @return the number of slots */
    public int slots() {
        return buffers.length;
    }

    /**
     * @param s the slot
     * @return its busdma map
     */
    public BusDmaMap map(int s) {
        return maps[s];
    }

    /** @return the domain the ring's device is attached to */
    public DmarDomain domain() {
        return busdma.domain();
    }

    /** @return bytes per packet */
    public int packetSize() {
        return packetSize;
    }

    /**
     * Loads slot {@code s}'s buffer for the NIC ({@code bus_dmamap_load}); takes {@code iodom}.
     *
     * @param s the slot
     */
    public void load(int s) {
        iova[s] = busdma.load(maps[s], buffers[s], packetSize);
    }

    /**
     * The NIC writes the next packet into slot {@code s} by DMA through the IOMMU.
     *
     * @param s the slot
     * @return null, or the DMA fault the checker found
     */
    public DmaFault receive(int s) {
        long stamp = ((long) queue << 48) | (sent++ & 0xFFFF_FFFF_FFFFL);
        stamps[s] = stamp;
        Payloads.stamp(payload, stamp);
        return hw.dmaWrite(rid, iova[s], payload, 0, packetSize);
    }

    /**
     * Unloads slot {@code s} ({@code bus_dmamap_unload}); takes {@code dmarhw}.
     *
     * @param s the slot
     */
    public void unload(int s) {
        busdma.unload(maps[s]);
    }

    /**
     * @param s the slot
     * @return whether slot {@code s}'s buffer holds the packet the NIC wrote last
     */
    public boolean arrived(int s) {
        return Payloads.arrived(memory, buffers[s], payload, stamps[s]);
    }
}
