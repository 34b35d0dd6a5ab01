package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.hw.DmaFault;

/**
 * A netperf {@code TCP_MAERTS}-shaped receive workload: the machine under test receives a
 * stream, so for every packet a CPU loads a receive buffer of its NIC queue's ring
 * ({@link RxRing}), the NIC writes the packet into it by DMA through the IOMMU, the CPU unloads
 * the map ({@code iflib_rxeof} → {@code bus_dmamap_unload}) and checks the data arrived. Each
 * CPU has its own ring, on device {@code cpu % devices}; the slots are used in turn.
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
        final RxRing ring;
        int next;

        Rx(int index) {
            super(index, startLatch());
            int device = index % machine.devices();
            this.ring = new RxRing(busdma(device, "iflib_rxeof", "_task_fn_rx"), machine.hardwareOf(device),
                    machine.requestId(device), index, BUFFERS_PER_CPU, config.packetSize(), config.seed());
        }

        @Override
        protected long step() {
            int s = next;
            next = (next + 1) % ring.slots();
            ring.load(s);
            DmaFault f = ring.receive(s);
            ring.unload(s);
            if (f != null) {
                fault(f);
                return 0;
            }
            if (!ring.arrived(s)) {
                integrityError();
            }
            return ring.packetSize();
        }
    }
}
