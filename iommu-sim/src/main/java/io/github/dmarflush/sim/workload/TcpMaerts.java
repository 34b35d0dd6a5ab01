package io.github.dmarflush.sim.workload;

import io.github.dmarflush.flushlist.qi.QiTask;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.busdma.BusDma;
import io.github.dmarflush.sim.busdma.BusDmaMap;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.PhysicalMemory;
import io.github.dmarflush.sim.lock.LockstatMutex;
import io.github.dmarflush.sim.lock.SiteStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A netperf {@code TCP_MAERTS}-shaped receive workload: the machine under test receives a
 * stream, so for every packet a CPU loads a receive buffer into the NIC's busdma map, the NIC
 * writes the packet into it by DMA through the IOMMU, the CPU unloads the map and checks the
 * data arrived. {@code threads} CPUs do this concurrently, each with its own map and ring of
 * buffers, for the warm-up and then the measured window.
 *
 * <p>Each unload queues an IOTLB invalidation and a wait descriptor under {@code dmarhw};
 * the QI task frees the IOVA space once the hardware has completed it. That is where the two
 * flush strategies differ: the locked baseline's task takes {@code dmarhw} for every entry,
 * competing with the CPUs' unloads.
 *
 * <p>After the window the CPUs stop, the unit is quiesced, and the run checks that nothing
 * faulted, every payload arrived intact, the flush list is empty and all IOVA space is free.
 */
public final class TcpMaerts {

    /** Receive buffers per CPU: a small RX ring. */
    static final int BUFFERS_PER_CPU = 16;

    private final SimMachine machine;
    private final WorkloadConfig config;

    /**
     * @param machine the machine to run on (fresh; one run per machine)
     * @param config the workload parameters
     */
    public TcpMaerts(SimMachine machine, WorkloadConfig config) {
        this.machine = Objects.requireNonNull(machine, "machine");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** One CPU's receive loop. */
    private static final class Cpu implements Runnable {
        final int index;
        final BusDma busdma;
        final DmarHardware hw;
        final PhysicalMemory memory;
        final int packetSize;
        final long[] buffers;
        final byte[] payload;
        final SplittableRandom rnd;
        final CountDownLatch started;
        volatile boolean stop;
        final AtomicLong packets = new AtomicLong();
        long integrityErrors;
        long faults;
        DmaFault firstFault;
        Throwable failure;

        Cpu(int index, SimMachine m, int packetSize, long seed, CountDownLatch started) {
            this.index = index;
            this.busdma = m.busdma();
            this.hw = m.hardware();
            this.memory = m.memory();
            this.packetSize = packetSize;
            this.rnd = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (index + 1)));
            this.buffers = new long[BUFFERS_PER_CPU];
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = memory.allocate(packetSize);
            }
            this.payload = new byte[packetSize];
            for (int i = 0; i < packetSize; i++) {
                payload[i] = (byte) rnd.nextInt();
            }
            this.started = started;
        }

        @Override
        public void run() {
            started.countDown();
            try {
                BusDmaMap map = busdma.createMap();
                long n = 0;
                while (!stop) {
                    long pa = buffers[rnd.nextInt(buffers.length)];
                    long stamp = ((long) index << 48) | (n & 0xFFFF_FFFF_FFFFL);
                    stampPayload(stamp);
                    long iova = busdma.load(map, pa, packetSize);
                    DmaFault f = hw.dmaWrite(SimMachine.NIC_RID, iova, payload, 0, packetSize);
                    busdma.unload(map);
                    if (f != null) {
                        if (faults++ == 0) {
                            firstFault = f;
                        }
                    } else if (!arrived(pa, stamp)) {
                        integrityErrors++;
                    }
                    n++;
                    packets.lazySet(n);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void stampPayload(long stamp) {
            int k = Math.min(8, packetSize);
            for (int i = 0; i < k; i++) {
                payload[i] = (byte) (stamp >>> (8 * i));
            }
        }

        /** The CPU's receive-side check: the stamp and the last byte are in the buffer. */
        private boolean arrived(long pa, long stamp) {
            int k = Math.min(8, packetSize);
            for (int i = 0; i < k; i++) {
                if (memory.read(pa + i) != (byte) (stamp >>> (8 * i))) {
                    return false;
                }
            }
            return memory.read(pa + packetSize - 1) == payload[packetSize - 1];
        }
    }

    private long packets(Cpu[] cpus) {
        long sum = 0;
        for (Cpu c : cpus) {
            sum += c.packets.get();
        }
        return sum;
    }

    private boolean anyFailed(Cpu[] cpus) {
        for (Cpu c : cpus) {
            if (c.failure != null) {
                return true;
            }
        }
        return machine.unit().taskQueue().failure() != null;
    }

    private void phase(String name, long nanos, Cpu[] cpus, long base, ProgressListener progress)
            throws InterruptedException {
        long start = System.nanoTime();
        long end = start + nanos;
        for (;;) {
            long now = System.nanoTime();
            if (now >= end || anyFailed(cpus)) {
                return;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(end - now, TimeUnit.SECONDS.toNanos(1)));
            long t = System.nanoTime();
            progress.progress(name, (t - start) / 1e9, nanos / 1e9, packets(cpus) - base);
        }
    }

    private static List<LockSiteSample> sample(LockstatMutex... locks) {
        List<LockSiteSample> out = new ArrayList<>();
        for (LockstatMutex l : locks) {
            for (SiteStats s : l.sites()) {
                out.add(new LockSiteSample(s.lockName(), s.caller(), s.acquisitions(), s.spinEvents(),
                        s.spinNanos(), s.blockEvents(), s.blockNanos()));
            }
        }
        return out;
    }

    /**
     * Runs the warm-up, the measured window, and the end-of-run checks.
     *
     * @param progress told about progress about once a second
     * @return the measured result; {@link RunResult#problems()} lists failed checks
     * @throws InterruptedException if the calling thread is interrupted
     */
    public RunResult run(ProgressListener progress) throws InterruptedException {
        DmarUnit unit = machine.unit();
        DmarHardware hw = machine.hardware();
        QiTask task = unit.task();
        CountDownLatch started = new CountDownLatch(config.threads());
        Cpu[] cpus = new Cpu[config.threads()];
        Thread[] threads = new Thread[cpus.length];
        for (int i = 0; i < cpus.length; i++) {
            cpus[i] = new Cpu(i, machine, config.packetSize(), config.seed(), started);
            threads[i] = new Thread(cpus[i], "cpu" + i);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
        started.await();
        phase("warmup", config.warmup().toNanos(), cpus, 0, progress);

        unit.lock().resetStats();
        machine.domain().lock().resetStats();
        long p0 = packets(cpus);
        long irq0 = hw.interrupts();
        long iwc0 = hw.iwcSets();
        long iotlb0 = hw.iotlbDescriptors();
        long wait0 = hw.waitDescriptors();
        long runs0 = task.runs();
        long first0 = task.releasedByFirstDrain();
        long second0 = task.releasedBySecondDrain();
        long full0 = unit.queueFull();
        long t0 = System.nanoTime();
        phase("measure", config.duration().toNanos(), cpus, p0, progress);
        long t1 = System.nanoTime();
        long p1 = packets(cpus);
        List<LockSiteSample> locks = sample(unit.lock(), machine.domain().lock());
        long irq = hw.interrupts() - irq0;
        long iwc = hw.iwcSets() - iwc0;
        long iotlb = hw.iotlbDescriptors() - iotlb0;
        long waits = hw.waitDescriptors() - wait0;
        long runs = task.runs() - runs0;
        long first = task.releasedByFirstDrain() - first0;
        long second = task.releasedBySecondDrain() - second0;
        long full = unit.queueFull() - full0;

        for (Cpu c : cpus) {
            c.stop = true;
        }
        for (Thread t : threads) {
            t.join();
        }

        List<String> problems = new ArrayList<>();
        long faults = 0;
        long integrity = 0;
        for (Cpu c : cpus) {
            faults += c.faults;
            integrity += c.integrityErrors;
            if (c.failure != null) {
                problems.add("cpu" + c.index + " failed: " + c.failure);
            }
            if (c.firstFault != null) {
                problems.add("cpu" + c.index + ": " + c.firstFault);
            }
        }
        if (integrity > 0) {
            problems.add(integrity + " packets did not arrive intact in their receive buffer");
        }
        if (unit.taskQueue().failure() == null) {
            unit.quiesce();
        }
        if (unit.taskQueue().failure() != null) {
            problems.add("the QI task failed: " + unit.taskQueue().failure());
        } else {
            if (!unit.flushList().isEmpty()) {
                problems.add("entries left on the TLB flush list after quiesce");
            }
            int leaked = machine.domain().allocatedRanges();
            if (leaked != 0) {
                problems.add(leaked + " IOVA ranges still allocated after quiesce (lost flush-list entries?)");
            }
        }
        if (unit.sequencer().sleepTimeouts() != 0) {
            problems.add(unit.sequencer().sleepTimeouts() + " waiter sleeps ended by timeout (lost wakeup?)");
        }
        return new RunResult("TCP_MAERTS", unit.strategy(), config, t1 - t0, p1 - p0,
                (p1 - p0) * config.packetSize(), locks, irq, iwc, iotlb, waits, runs, first, second, full,
                faults, integrity, List.copyOf(problems));
    }
}
