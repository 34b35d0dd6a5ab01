package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import io.github.dmarflush.sim.busdma.BusDmaTag;
import io.github.dmarflush.sim.gas.GasConstraints;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;

/**
 * A {@code dd}-shaped workload of large sequential writes to a disk: each CPU keeps one
 * request of {@code requestSize} bytes (2 MiB by default) in flight. For every request it
 * fills its buffer, loads it (the disk's tag cuts it into segments of at most
 * {@code segmentSize}, each its own IOVA range), the disk controller reads every segment by
 * DMA and checks a stamp on each 4 KiB page, and the completion unloads the map
 * ({@code nvme_payload_unload}-like). With a segment of 2 MiB and superpages enabled, a
 * request is one 2 MiB IOVA range mapped by one 2 MiB page and invalidated by one
 * descriptor with address mask 9.
 */
public final class DdWrite extends Workload {

    /**
     * @param machine the machine to run on (fresh; one run per machine)
     * @param config the workload parameters
     */
    public DdWrite(SimMachine machine, WorkloadConfig config) {
        super(machine, config);
    }

    @Override
    public String name() {
        return "dd";
    }

    @Override
    protected String opUnit() {
        return "requests";
    }

    @Override
    protected Cpu newCpu(int index) {
        return new Writer(index);
    }

    private final class Writer extends Cpu {
        final BusDma busdma;
        final int rid;
        final DmarHardware hw;
        final PhysicalMemory memory;
        final long size;
        final long buffer;
        final BusDmaMap map;
        final byte[] controller;
        final byte[] scratch = new byte[8];
        long n;

        Writer(int index) {
            super(index, startLatch());
            int device = index % machine.devices();
            this.busdma = busdma(device, "nvme_payload_unload", "nvme_qpair_complete_tracker");
            this.rid = machine.requestId(device);
            this.hw = machine.hardwareOf(device);
            this.memory = machine.memory();
            this.size = config.requestSize();
            long align = Math.min(Long.highestOneBit(size) << (Long.bitCount(size) == 1 ? 0 : 1), 2L << 20);
            long raw = memory.allocate(size + align);
            this.buffer = (raw + align - 1) & -align;
            int nseg = (int) ((size + config.segmentSize() - 1) / config.segmentSize());
            this.map = busdma.createMap(new BusDmaTag(GasConstraints.NONE, size, nseg, config.segmentSize()));
            this.controller = new byte[(int) Math.min(config.segmentSize(), size)];
        }

        @Override
        protected long step() {
            long stamp = ((long) index << 48) | ((n++ & 0xFFFF_FFFFL) << 16);
            for (long off = 0; off < size; off += 4096) {
                Payloads.stampMemory(memory, buffer + off, stamp | (off >>> 12), 8, scratch);
            }
            busdma.load(map, buffer, size);
            boolean intact = true;
            long moved = 0;
            long bufOff = 0;
            for (int i = 0; i < map.segments(); i++) {
                int len = (int) map.segmentLength(i);
                DmaFault f = hw.dmaRead(rid, map.segmentAddress(i), controller, 0, len);
                if (f != null) {
                    fault(f);
                    moved = 0;
                    break;
                }
                for (int off = 0; off < len; off += 4096) {
                    intact &= Payloads.stamped(controller, off, stamp | ((bufOff + off) >>> 12));
                }
                bufOff += len;
                moved += len;
            }
            busdma.unload(map);
            if (!intact) {
                integrityError();
            }
            return moved;
        }
    }
}
