package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * A netperf {@code TCP_STREAM}-shaped transmit workload: the machine under test sends. For
 * every packet a CPU writes a header and a payload into memory, loads the two as an mbuf
 * chain (two segments, two IOVA ranges), and the NIC reads both by DMA through the IOMMU and
 * checks what it read. Transmitted maps are unloaded in batches of {@code txBatch}, as a
 * driver's transmit-completion pass does ({@code iflib_completed_tx_reclaim} →
 * {@code iflib_tx_desc_free} → {@code bus_dmamap_unload}), so each unload hands the domain
 * {@code 2 * txBatch} entries: batch coalescing gives only every Nth entry and the last an
 * interrupting wait descriptor.
 */
public final class TcpStream extends Workload {

    /** Header bytes per packet (Ethernet + IPv4 + TCP with timestamps). */
    static final int HEADER = 66;

    /**
     * @param machine the machine to run on (fresh; one run per machine)
     * @param config the workload parameters
     */
    public TcpStream(SimMachine machine, WorkloadConfig config) {
        super(machine, config);
    }

    @Override
    public String name() {
        return "TCP_STREAM";
    }

    @Override
    protected String opUnit() {
        return "packets";
    }

    @Override
    protected Cpu newCpu(int index) {
        return new Tx(index);
    }

    private final class Tx extends Cpu {
        final BusDma busdma;
        final int rid;
        final DmarHardware hw;
        final PhysicalMemory memory;
        final int packetSize;
        final BusDmaMap[] maps;
        final long[] headers;
        final long[] payloads;
        final List<BusDmaMap> pending = new ArrayList<>();
        final byte[] nicBuffer;
        final byte[] scratch = new byte[8];
        final long[] pas = new long[2];
        final long[] lens = new long[2];
        int slot;
        long n;

        Tx(int index) {
            super(index, startLatch());
            int device = index % machine.devices();
            this.busdma = busdma(device, "iflib_tx_desc_free", "iflib_completed_tx_reclaim");
            this.rid = machine.requestId(device);
            this.hw = machine.hardwareOf(device);
            this.memory = machine.memory();
            this.packetSize = config.packetSize();
            int slots = config.txBatch();
            this.maps = new BusDmaMap[slots];
            this.headers = new long[slots];
            this.payloads = new long[slots];
            for (int i = 0; i < slots; i++) {
                maps[i] = busdma.createMap();
                headers[i] = memory.allocate(4096) + 0x40;
                payloads[i] = memory.allocate(packetSize);
            }
            this.nicBuffer = new byte[Math.max(HEADER, packetSize)];
        }

        @Override
        protected long step() {
            int s = slot;
            slot = (slot + 1) % maps.length;
            long stamp = ((long) index << 48) | (n++ & 0xFFFF_FFFF_FFFFL);
            Payloads.stampMemory(memory, headers[s], ~stamp, HEADER, scratch);
            Payloads.stampMemory(memory, payloads[s], stamp, packetSize, scratch);
            pas[0] = headers[s];
            lens[0] = HEADER;
            pas[1] = payloads[s];
            lens[1] = packetSize;
            BusDmaMap map = maps[s];
            busdma.loadChain(map, pas, lens);
            long moved = 0;
            boolean intact = true;
            for (int i = 0; i < map.segments(); i++) {
                int len = (int) map.segmentLength(i);
                DmaFault f = hw.dmaRead(rid, map.segmentAddress(i), nicBuffer, 0, len);
                if (f != null) {
                    fault(f);
                    moved = 0;
                    break;
                }
                if (i == 0) {
                    intact &= Payloads.stamped(nicBuffer, 0, ~stamp);
                } else if (i == 1) {
                    intact &= Payloads.stamped(nicBuffer, 0, stamp);
                    moved = len;
                }
            }
            if (!intact) {
                integrityError();
            }
            pending.add(map);
            if (pending.size() == maps.length) {
                busdma.unloadBatch(pending);
                pending.clear();
            }
            return moved;
        }

        @Override
        protected void finish() {
            if (!pending.isEmpty()) {
                busdma.unloadBatch(pending);
                pending.clear();
            }
        }
    }
}
