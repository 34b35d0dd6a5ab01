package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.DmarDomain;
import io.github.dmarflush.sim.driver.DmarUnit;
import io.github.dmarflush.sim.driver.InvalidationStacks;
import io.github.dmarflush.sim.hw.DmaFault;
import io.github.dmarflush.sim.lock.SimMutex;
import io.github.dmarflush.sim.lock.SiteStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A workload that runs {@code threads} simulated CPUs, each repeating one operation (a
 * packet, a request) through busdma on its device, for a warm-up and then a measured window,
 * and checks the machine afterwards. Subclasses say what one operation is.
 *
 * <p>After the window the CPUs stop (each unloads what it still holds), every unit is
 * quiesced, and the run checks that nothing faulted, every payload arrived intact, the flush
 * lists are empty, all IOVA space is free, the allocators' trees are intact, and no waiter's
 * sleep ended by its timeout.
 */
public abstract class Workload {

    /** The machine to run on (fresh; one run per machine). */
    protected final SimMachine machine;
    /** The workload parameters. */
    protected final WorkloadConfig config;

    /**
     * @param machine the machine to run on
     * @param config the workload parameters
     */
    protected Workload(SimMachine machine, WorkloadConfig config) {
        this.machine = Objects.requireNonNull(machine, "machine");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** @return the name in reports, e.g. {@code TCP_MAERTS} */
    public abstract String name();

    /** @return what an operation is, plural, e.g. {@code packets} */
    protected abstract String opUnit();

    /**
     * @param index the CPU's index, 0..threads-1
     * @return the CPU's loop
     */
    protected abstract Cpu newCpu(int index);

    /** One simulated CPU: repeats {@link #step()} until told to stop, then {@link #finish()}. */
    protected abstract static class Cpu implements Runnable {
        final int index;
        final CountDownLatch started;
        volatile boolean stop;
        /**
         * Operations and bytes so far, published together in one volatile write so that a
         * reader never pairs the operation count of one step with the byte count of another.
         */
        volatile Tally tally = Tally.ZERO;
        long integrityErrors;
        long faults;
        DmaFault firstFault;
        Throwable failure;

        /**
         * @param index the CPU's index
         * @param started counted down when the CPU starts
         */
        protected Cpu(int index, CountDownLatch started) {
            this.index = index;
            this.started = started;
        }

        /**
         * One operation.
         *
         * @return payload bytes moved by DMA
         */
        protected abstract long step();

        /** Unloads whatever the CPU still holds. Called once, on the CPU's thread, after the last step. */
        protected void finish() {
        }

        /**
         * Records a DMA fault of this CPU.
         *
         * @param f the fault
         */
        protected final void fault(DmaFault f) {
            if (faults++ == 0) {
                firstFault = f;
            }
        }

        /** Records a payload that did not arrive intact. */
        protected final void integrityError() {
            integrityErrors++;
        }

        @Override
        public final void run() {
            started.countDown();
            try {
                long n = 0;
                long b = 0;
                while (!stop) {
                    b += step();
                    n++;
                    tally = new Tally(n, b);
                }
                finish();
            } catch (Throwable t) {
                failure = t;
            }
        }
    }

    private volatile io.github.dmarflush.sim.busdma.DmaTraceSink traceSink;

    /**
     * Records the busdma map and unmap events of this run's CPUs.
     *
     * @param sink where they go (null for none)
     */
    public void recordTo(io.github.dmarflush.sim.busdma.DmaTraceSink sink) {
        this.traceSink = sink;
    }

    /**
     * A busdma path for a device, recording to the sink given to {@link #recordTo}.
     *
     * @param device device index
     * @param driverFrames the driver functions that unload (for the stack aggregation)
     * @return the path
     */
    protected final io.github.dmarflush.sim.busdma.BusDma busdma(int device, String... driverFrames) {
        io.github.dmarflush.sim.busdma.BusDma b = machine.busdma(device, driverFrames);
        b.setTraceSink(traceSink);
        return b;
    }

    /** The latch each CPU counts down when it starts. */
    private CountDownLatch started;

    /** @return the latch the CPUs built by {@link #newCpu} count down */
    protected final CountDownLatch startLatch() {
        return started;
    }

    /** A CPU's operation and byte counts after the same step. */
    record Tally(long ops, long bytes) {
        static final Tally ZERO = new Tally(0, 0);

        Tally plus(Tally o) {
            return new Tally(ops + o.ops, bytes + o.bytes);
        }
    }

    private static Tally sum(Cpu[] cpus) {
        Tally s = Tally.ZERO;
        for (Cpu c : cpus) {
            s = s.plus(c.tally);
        }
        return s;
    }

    private boolean anyFailed(Cpu[] cpus) {
        for (Cpu c : cpus) {
            if (c.failure != null) {
                return true;
            }
        }
        return machine.units().stream().anyMatch(u -> u.taskRunner().failure() != null);
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
            progress.progress(name, (t - start) / 1e9, nanos / 1e9, sum(cpus).ops() - base);
        }
    }

    /**
     * Samples every lock of the machine, merging instances of the same (lock, caller).
     *
     * @param m the machine
     * @return one sample per (lock, caller)
     */
    public static List<LockSiteSample> sampleLocks(SimMachine m) {
        List<SimMutex> locks = new ArrayList<>();
        m.units().forEach(u -> locks.add(u.lock()));
        m.domains().forEach(d -> locks.add(d.lock()));
        Map<String, LockSiteSample> merged = new LinkedHashMap<>();
        for (SimMutex l : locks) {
            for (SiteStats s : l.sites()) {
                if (s.acquisitions() == 0 && s.spinEvents() == 0 && s.blockEvents() == 0) {
                    continue; // a call site this run never used
                }
                LockSiteSample x = new LockSiteSample(s.lockName(), s.caller(), s.acquisitions(), s.spinEvents(),
                        s.spinNanos(), s.blockEvents(), s.blockNanos(), s.spinHistogram(), s.blockHistogram());
                merged.merge(s.lockName() + "\0" + s.caller(), x, LockSiteSample::plus);
            }
        }
        return List.copyOf(merged.values());
    }

    /**
     * Merges the units' stack aggregations.
     *
     * @param m the machine
     * @return rows, largest count first
     */
    public static List<InvalidationStacks.Row> sampleStacks(SimMachine m) {
        Map<io.github.dmarflush.sim.driver.CallStack, Long> sum = new LinkedHashMap<>();
        for (DmarUnit u : m.units()) {
            for (InvalidationStacks.Row r : u.stacks().snapshot()) {
                sum.merge(r.stack(), r.count(), Long::sum);
            }
        }
        return sum.entrySet().stream()
                .map(e -> new InvalidationStacks.Row(e.getKey(), e.getValue()))
                .sorted((a, b) -> Long.compare(b.count(), a.count()))
                .toList();
    }

    /** Zeroes the lock statistics and stack counts at the start of the measured window. */
    public static void resetWindow(SimMachine m) {
        m.units().forEach(u -> {
            u.lock().resetStats();
            u.stacks().reset();
        });
        m.domains().forEach(d -> d.lock().resetStats());
    }

    /**
     * Quiesces every unit on host threads and checks the machine is clean
     * ({@link #checkMachine}).
     *
     * @param m the machine
     * @param problems where failures go
     * @param notes where observations that are not failures go
     */
    static void endOfRunChecks(SimMachine m, List<String> problems, List<String> notes) {
        for (DmarUnit u : m.units()) {
            if (u.taskRunner().failure() == null) {
                u.quiesce();
            }
        }
        checkMachine(m, problems, notes);
    }

    /**
     * Checks a quiesced machine is clean: no task failure, empty flush lists, no IOVA range
     * still allocated, intact allocator trees, no queue error. Waiter sleeps that ran out with
     * their invalidation still pending (the engine was slower than the sleep timeout, as on a
     * starved machine) are a note, not a failure: they are no sign of a lost wakeup (see
     * {@code QiSequencer.sleepTimeouts}).
     *
     * @param m the machine, every unit quiesced
     * @param problems where failures go
     * @param notes where observations that are not failures go
     */
    public static void checkMachine(SimMachine m, List<String> problems, List<String> notes) {
        for (DmarUnit u : m.units()) {
            String n = u.hardware().name();
            if (u.taskRunner().failure() != null) {
                problems.add(n + ": the QI task failed: " + u.taskRunner().failure());
                continue;
            }
            if (!u.flushList().isEmpty()) {
                problems.add(n + ": entries left on the TLB flush list after quiesce");
            }
            if (u.sequencer().sleepTimeouts() != 0) {
                notes.add(n + ": " + u.sequencer().sleepTimeouts()
                        + " waiter sleeps ran out with the invalidation still pending (engine slower than the sleep timeout)");
            }
            if ((u.hardware().readFsts() & io.github.dmarflush.sim.hw.DmarHardware.FSTS_IQE) != 0) {
                problems.add(n + ": invalidation queue error (FSTS.IQE) at IQH 0x"
                        + Long.toHexString(u.hardware().readIqh()));
            }
        }
        for (DmarDomain d : m.domains()) {
            int leaked = d.allocatedRanges();
            if (leaked != 0) {
                problems.add("domain " + d.domainId() + " of " + d.unit().hardware().name() + ": " + leaked
                        + " IOVA ranges still allocated after quiesce (lost flush-list entries?)");
            }
            try {
                d.withGas(g -> g.checkInvariants());
            } catch (IllegalStateException e) {
                problems.add("domain " + d.domainId() + ": IOVA allocator tree broken: " + e.getMessage());
            }
        }
    }

    /**
     * Runs the warm-up, the measured window, and the end-of-run checks.
     *
     * @param progress told about progress about once a second
     * @return the measured result; {@link RunResult#problems()} lists failed checks
     * @throws InterruptedException if the calling thread is interrupted
     */
    public RunResult run(ProgressListener progress) throws InterruptedException {
        started = new CountDownLatch(config.threads());
        Cpu[] cpus = new Cpu[config.threads()];
        Thread[] threads = new Thread[cpus.length];
        for (int i = 0; i < cpus.length; i++) {
            cpus[i] = newCpu(i);
            threads[i] = new Thread(cpus[i], "cpu" + i);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
        started.await();
        phase("warmup", config.warmup().toNanos(), cpus, 0, progress);

        resetWindow(machine);
        QiCounters c0 = QiCounters.capture(machine);
        Tally w0 = sum(cpus);
        long t0 = System.nanoTime();
        phase("measure", config.duration().toNanos(), cpus, w0.ops(), progress);
        long t1 = System.nanoTime();
        Tally w1 = sum(cpus);
        QiCounters qi = QiCounters.capture(machine).minus(c0);
        List<LockSiteSample> locks = sampleLocks(machine);
        List<InvalidationStacks.Row> stacks = sampleStacks(machine);

        for (Cpu c : cpus) {
            c.stop = true;
        }
        for (Thread t : threads) {
            t.join();
        }

        List<String> problems = new ArrayList<>();
        long integrity = 0;
        for (Cpu c : cpus) {
            integrity += c.integrityErrors;
            if (c.failure != null) {
                problems.add("cpu" + c.index + " failed: " + c.failure);
            }
            if (c.firstFault != null) {
                problems.add("cpu" + c.index + ": " + c.firstFault);
            }
        }
        if (integrity > 0) {
            problems.add(integrity + " " + opUnit() + " did not arrive intact");
        }
        List<String> notes = new ArrayList<>();
        endOfRunChecks(machine, problems, notes);
        return new RunResult(name(), machine.config(), config, t1 - t0, w1.ops() - w0.ops(), opUnit(), w1.bytes() - w0.bytes(), locks, qi,
                stacks, integrity, 0, List.copyOf(notes), List.copyOf(problems), ClockInfo.host());
    }
}
