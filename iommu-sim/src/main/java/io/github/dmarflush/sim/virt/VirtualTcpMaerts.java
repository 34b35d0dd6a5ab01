package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.Cost;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.InvalidationStacks;
import io.github.dmarflush.sim.kern.KThread;
import io.github.dmarflush.sim.workload.ClockInfo;
import io.github.dmarflush.sim.workload.LockSiteSample;
import io.github.dmarflush.sim.workload.QiCounters;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.RxRing;
import io.github.dmarflush.sim.workload.Workload;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * netperf {@code TCP_MAERTS} in virtual time: {@code streams} TCP streams arrive on the
 * machine's NICs (one NIC per device, each on its own wire at {@code nic.line_mbps}), one
 * stream per receive queue, queue {@code q} on device {@code q % devices} with its receive
 * task bound to CPU {@code q % cpus}; the DMAR units' QI tasks run on any CPU and preempt the
 * receive tasks. The measured window's figures are exact functions of the inputs.
 *
 * <p>A run: every ring is filled at time 0; the warm-up runs; the lock statistics and
 * counters are zeroed; the window runs; then the NICs stop, each receive task finishes what it
 * has received, gives back the buffers still posted and exits, each unit is quiesced by a
 * simulated thread ({@link QuiesceTask}), and the machine is checked as on host threads: no
 * DMA fault, every payload intact, empty flush lists, all IOVA space free, intact allocator
 * trees.
 */
public final class VirtualTcpMaerts {

    /** How long the end of a run may take in simulated time before it counts as stuck, ns. */
    static final long END_LIMIT_NANOS = 60_000_000_000L;

    private final SimMachine machine;
    private final VirtualClock clock;
    private final WorkloadConfig config;
    private final int streams;
    private final List<RxQueue> queues = new ArrayList<>();
    private final List<RxTask> tasks = new ArrayList<>();
    private final List<Nic> nics = new ArrayList<>();

    /**
     * @param machine a fresh machine on a {@link VirtualClock}
     * @param config the workload's parameters ({@code threads} is ignored: see {@code streams})
     * @param streams receive streams (NIC queues), at least 1
     * @param busdmaUnderIodom whether busdma guards a map's entry list with {@code iodom}
     *     (FreeBSD before D35557, state A)
     * @throws IllegalArgumentException if the machine is not on a virtual clock
     */
    public VirtualTcpMaerts(SimMachine machine, WorkloadConfig config, int streams, boolean busdmaUnderIodom) {
        this.machine = Objects.requireNonNull(machine, "machine");
        this.config = Objects.requireNonNull(config, "config");
        if (!(machine.clock() instanceof VirtualClock vc)) {
            throw new IllegalArgumentException("VirtualTcpMaerts needs a machine on a VirtualClock");
        }
        if (streams < 1) {
            throw new IllegalArgumentException("streams must be >= 1, got " + streams);
        }
        this.clock = vc;
        this.streams = streams;
        CostModel c = clock.costs();
        long frame = config.packetSize() + c.get(Cost.NIC_WIRE_OVERHEAD_BYTES);
        for (int d = 0; d < machine.devices(); d++) {
            nics.add(new Nic(clock.loop(), frame, c.get(Cost.NIC_LINE_MBPS)));
        }
        int slots = (int) c.get(Cost.RX_RING_SLOTS);
        int cpus = clock.kernel().cpus();
        for (int q = 0; q < streams; q++) {
            int device = q % machine.devices();
            RxRing ring = new RxRing(machine.busdma(device, "iflib_rxeof", "_task_fn_rx"), machine.hardwareOf(device),
                    machine.requestId(device), q, slots, config.packetSize(), config.seed());
            RxTask[] task = new RxTask[1];
            RxQueue queue = new RxQueue(q, ring, nics.get(device), () -> task[0].frameArrived());
            DmarUnit unit = machine.domainOf(device).unit();
            task[0] = new RxTask(queue, unit, busdmaUnderIodom, clock);
            queues.add(queue);
            tasks.add(task[0]);
            task[0].start(q % cpus, (int) c.get(Cost.PRIO_RX));
        }
    }

    /**
     * Bytes of simulated memory a run needs: every queue's ring of page-aligned buffers, plus
     * room for the invalidation queues and status pages.
     *
     * @param costs the cost model (ring size)
     * @param streams receive streams
     * @param packetSize bytes per packet
     * @return bytes
     */
    public static long memoryNeeded(CostModel costs, int streams, int packetSize) {
        long perBuffer = (packetSize + 4095L) & ~4095L;
        return streams * costs.get(Cost.RX_RING_SLOTS) * perBuffer + (64L << 20);
    }

    /**
     * The simulated memory a run needs, checked against what the JVM may take.
     *
     * @param atLeast the machine configuration's memory, bytes
     * @param costs the cost model (ring size)
     * @param streams receive streams
     * @param packetSize bytes per packet
     * @return bytes of simulated memory to give the machine
     * @throws IllegalArgumentException if it does not fit in an array or in the JVM's heap
     */
    public static int memoryFor(long atLeast, CostModel costs, int streams, int packetSize) {
        long m = Math.max(atLeast, memoryNeeded(costs, streams, packetSize));
        long heap = Runtime.getRuntime().maxMemory();
        if (m > Integer.MAX_VALUE - 8L || m > heap * 3 / 4) {
            throw new IllegalArgumentException(streams + " streams of " + costs.get(Cost.RX_RING_SLOTS)
                    + " buffers need " + (m >> 20) + " MiB of simulated memory; the JVM may use " + (heap >> 20)
                    + " MiB and a run at most 2 GiB: use fewer streams, a smaller rx.ring_slots, or java -Xmx");
        }
        return (int) m;
    }

    /**
     * Runs the warm-up, the window and the end of the run.
     *
     * @return the window's result; {@link RunResult#problems()} lists failed checks
     */
    public RunResult run() {
        for (RxQueue q : queues) {
            for (int s = 0; s < q.ring.slots(); s++) {
                q.ring.load(s);
                q.post(s);
            }
        }
        long warmup = config.warmup().toNanos();
        long window = config.duration().toNanos();
        clock.kernel().runUntil(warmup);

        Workload.resetWindow(machine);
        QiCounters c0 = QiCounters.capture(machine);
        long[] p0 = tally();
        ThreadTimes t0 = new ThreadTimes();
        clock.kernel().runUntil(warmup + window);
        long[] p1 = tally();
        String threadTimes = new ThreadTimes().since(t0, window);
        QiCounters qi = QiCounters.capture(machine).minus(c0);
        List<LockSiteSample> locks = Workload.sampleLocks(machine);
        List<InvalidationStacks.Row> stacks = Workload.sampleStacks(machine);

        List<String> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        notes.add(threadTimes);
        finish(problems);
        long integrity = 0;
        for (RxTask t : tasks) {
            integrity += t.integrityErrors;
        }
        for (int q = 0; q < streams; q++) {
            RxTask t = tasks.get(q);
            if (t.failure != null) {
                problems.add("rxq" + q + " failed: " + t.failure);
            }
            if (queues.get(q).firstFault != null) {
                problems.add("rxq" + q + ": " + queues.get(q).firstFault);
            }
        }
        if (integrity > 0) {
            problems.add(integrity + " packets did not arrive intact");
        }
        Workload.checkMachine(machine, problems, notes);
        long ff = clock.engineFastForwards();
        if (ff > 0) {
            notes.add(ff + " descriptors executed at once while a CPU spun on the engine inside one step"
                    + " (sequence wrap or full ring): their latency was not simulated");
        }
        ClockInfo info = new ClockInfo(true, clock.kernel().cpus(), streams, clock.costs().name());
        return new RunResult("TCP_MAERTS", machine.config(), config, window, p1[0] - p0[0], "packets",
                p1[1] - p0[1], locks, qi, stacks, integrity, 0, List.copyOf(notes), List.copyOf(problems), info);
    }

    /** The receive tasks' and QI tasks' time on a CPU and spinning, at one instant. */
    private final class ThreadTimes {
        private final long[] rxCpu = new long[tasks.size()];
        private final long[] rxSpin = new long[tasks.size()];
        private final List<QiTaskThread> qi = clock.taskThreads();
        private final long[] qiCpu = new long[qi.size()];
        private final long[] qiSpin = new long[qi.size()];

        ThreadTimes() {
            long now = clock.loop().now();
            for (int i = 0; i < tasks.size(); i++) {
                rxCpu[i] = tasks.get(i).thread().cpuNanos(now);
                rxSpin[i] = tasks.get(i).thread().spinNanos();
            }
            for (int i = 0; i < qi.size(); i++) {
                qiCpu[i] = qi.get(i).thread().cpuNanos(now);
                qiSpin[i] = qi.get(i).thread().spinNanos();
            }
        }

        /** @return a note: the share of the window the threads spent on a CPU and spinning, on average */
        String since(ThreadTimes start, long window) {
            double rxOn = 0;
            double rxSp = 0;
            for (int i = 0; i < rxCpu.length; i++) {
                rxOn += rxCpu[i] - start.rxCpu[i];
                rxSp += rxSpin[i] - start.rxSpin[i];
            }
            double qiOn = 0;
            double qiSp = 0;
            for (int i = 0; i < qiCpu.length; i++) {
                qiOn += qiCpu[i] - start.qiCpu[i];
                qiSp += qiSpin[i] - start.qiSpin[i];
            }
            double w = (double) window;
            return String.format(Locale.ROOT, "in the window a receive task was on a CPU %.1f%% of the time "
                    + "(spinning %.1f%%) and a QI task %.1f%% (spinning %.1f%%), on average",
                    100 * rxOn / (w * rxCpu.length), 100 * rxSp / (w * rxCpu.length),
                    100 * qiOn / (w * qiCpu.length), 100 * qiSp / (w * qiCpu.length));
        }
    }

    private long[] tally() {
        long packets = 0;
        long bytes = 0;
        for (RxTask t : tasks) {
            packets += t.packets;
            bytes += t.bytes;
        }
        return new long[] {packets, bytes};
    }

    /** Stops the NICs, lets the receive tasks finish and exit, and quiesces every unit. */
    private void finish(List<String> problems) {
        nics.forEach(Nic::stop);
        tasks.forEach(RxTask::stop);
        long limit = clock.loop().now() + END_LIMIT_NANOS;
        clock.kernel().runUntilIdle(limit);
        for (RxTask t : tasks) {
            if (!t.finished()) {
                problems.add("a receive task did not finish after the window (stuck on a lock or the ring?)");
                return;
            }
        }
        long poll = clock.costs().get(Cost.TASK_ICS_NS);
        for (DmarUnit u : machine.units()) {
            clock.kernel().spawn(u.hardware().name() + " fini", 0, -1, new QuiesceTask(u, poll));
        }
        if (!clock.kernel().runUntilIdle(limit)) {
            problems.add("the machine did not quiesce within " + END_LIMIT_NANOS / 1_000_000_000L
                    + " s of simulated time after the window");
        }
        for (KThread t : clock.kernel().threads()) {
            if (t.name().endsWith(" fini") && t.state() != KThread.State.DEAD) {
                problems.add(t.name() + ": the quiesce did not complete");
            }
        }
    }
}
