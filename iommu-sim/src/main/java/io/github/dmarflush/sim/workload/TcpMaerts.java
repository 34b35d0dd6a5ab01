package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.SplittableRandom;

/**
 * A netperf {@code TCP_MAERTS}-shaped receive workload: the machine under test receives a
 * stream, so for every packet a CPU loads a receive buffer into its NIC queue's busdma map,
 * the NIC writes the packet into it by DMA through the IOMMU, the CPU unloads the map
 * ({@code iflib_rxeof} → {@code bus_dmamap_unload}) and checks the data arrived. Each CPU has
 * its own map and ring of buffers, on device {@code cpu % devices}.
 *
 * <p>Each unload queues an IOTLB invalidation and an interrupting wait descriptor under
 * {@code dmarhw}; the QI task frees the IOVA space once the hardware has completed it. That is
 * where the two flush strategies differ: the locked baseline's task takes {@code dmarhw} for
 * every entry, competing with the CPUs' unloads.
 */
public final class TcpMaerts extends Workload {

    /** Receive buffers per CPU: a small RX ring. */
    static final int BUFFERS_PER_CPU = 16;

    /**
     * @param machine the machine to run on (fresh; one run per machine)
     * @param config the workload parameters
     */
    public TcpMaerts(SimMachine machine, WorkloadConfig config) {
        super(machine, config);
    }

    @Override
    public String name() {
        return "TCP_MAERTS";
    }

    @Override
    protected String opUnit() {
        return "packets";
    }

    @Override
    protected Cpu newCpu(int index) {
        return new Rx(index);
    }

    private final class Rx extends Cpu {
        final BusDma busdma;
        final int rid;
        final DmarHardware hw;
        final PhysicalMemory memory;
        final int packetSize;
        final long[] buffers;
        final byte[] payload;
        final SplittableRandom rnd;
        final BusDmaMap map;
        long n;

        Rx(int index) {
            super(index, startLatch());
            int device = index % machine.devices();
            this.busdma = busdma(device, "iflib_rxeof", "_task_fn_rx");
            this.rid = machine.requestId(device);
            this.hw = machine.hardwareOf(device);
            this.memory = machine.memory();
            this.packetSize = config.packetSize();
            this.rnd = new SplittableRandom(config.seed() ^ (0x9E3779B97F4A7C15L * (index + 1)));
            this.buffers = new long[BUFFERS_PER_CPU];
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = memory.allocate(packetSize);
            }
            this.payload = new byte[packetSize];
            for (int i = 0; i < packetSize; i++) {
                payload[i] = (byte) rnd.nextInt();
            }
            this.map = busdma.createMap();
        }

        @Override
        protected long step() {
            long pa = buffers[rnd.nextInt(buffers.length)];
            long stamp = ((long) index << 48) | (n++ & 0xFFFF_FFFF_FFFFL);
            Payloads.stamp(payload, stamp);
            long iova = busdma.load(map, pa, packetSize);
            DmaFault f = hw.dmaWrite(rid, iova, payload, 0, packetSize);
            busdma.unload(map);
            if (f != null) {
                fault(f);
                return 0;
            }
            if (!Payloads.arrived(memory, pa, payload, stamp)) {
                integrityError();
            }
            return packetSize;
        }
    }
}
