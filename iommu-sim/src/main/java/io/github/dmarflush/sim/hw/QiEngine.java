package io.github.dmarflush.sim.hw;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * The invalidation-queue engine of one unit: what the hardware does with each descriptor,
 * independent of when it does it (the {@link EngineDriver} decides that).
 *
 * <p>It executes descriptors in ring order from IQH to IQT. It first checks the descriptor: an
 * unsupported type or a reserved bit set stops it at that descriptor with FSTS.IQE set and IQH
 * pointing at it, until software clears IQE. IOTLB invalidations drop cached translations;
 * context-cache invalidations drop cached context entries; a wait descriptor with SW performs
 * the status write (4 bytes of status data at the address in its upper quadword); with IF it
 * sets ICS.IWC and raises the completion interrupt only if IWC went from 0 to 1 (and IECTL.IM
 * is clear). IQH moves past a descriptor only once it is done. It can be halted and
 * single-stepped ({@link #halt()}, {@link #step(int)}), as with a hardware debugger, to put the
 * queue into states tests need.
 *
 * <p>Thread-safety: {@link #ready()}, {@link #nextLatency} and {@link #executeNext()} are
 * called by one driver at a time; statistics may be read from any thread.
 */
public final class QiEngine {

    private final DmarHardware hw;
    private final Iotlb iotlb;
    private final DmaRemapper remapper;
    private final EngineTiming timing;
    private volatile boolean halted;
    private final AtomicLong stepBudget = new AtomicLong();

    // Statistics; the engine is their only writer.
    private volatile long iotlbDescriptors;
    private volatile long iotlbPageDescriptors;
    private volatile long waitDescriptors;
    private volatile long contextDescriptors;
    private volatile long iecDescriptors;
    private volatile long interrupts;
    private volatile long iwcSets;
    private volatile long invalidDescriptors;
    private volatile long statusWritesToMemory;

    QiEngine(DmarHardware hw, Iotlb iotlb, DmaRemapper remapper, EngineTiming timing) {
        this.hw = hw;
        this.iotlb = iotlb;
        this.remapper = remapper;
        this.timing = Objects.requireNonNull(timing, "timing");
    }

    /** @return a jitter stream seeded from the timing's seed */
    SplittableRandom newJitter() {
        return new SplittableRandom(timing.seed());
    }

    /**
     * Whether the engine can execute a descriptor now: QI enabled, a descriptor between IQH and
     * IQT, FSTS.IQE clear, and not halted (or a single-step budget left).
     *
     * @return true if {@link #executeNext()} would execute (or reject) a descriptor
     */
    public boolean ready() {
        return hw.qiEnabled() && hw.queue() != null && hw.iqhRaw() != hw.readIqt()
                && (hw.fstsRaw() & DmarHardware.FSTS_IQE) == 0 && (!halted || stepBudget.get() > 0);
    }

    /** @return IQH, the byte offset of the descriptor the engine executes next */
    public long head() {
        return hw.iqhRaw();
    }

    /** @return IQT, the byte offset one past the last published descriptor */
    public long tail() {
        return hw.readIqt();
    }

    /**
     * The time the descriptor at IQH takes: its type's latency plus a uniform jitter drawn from
     * {@code jitter}.
     *
     * @param jitter the driver's jitter stream
     * @return ns
     */
    public long nextLatency(SplittableRandom jitter) {
        long latency = timing.latencyOf(hw.queue().lo((int) hw.iqhRaw()));
        if (timing.jitterNanos() > 0) {
            latency += jitter.nextLong(timing.jitterNanos() + 1);
        }
        return latency;
    }

    /**
     * Executes the descriptor at IQH, if the engine is {@link #ready()}: checks it, does what
     * it says, and moves IQH past it; an invalid descriptor sets FSTS.IQE and leaves IQH on it.
     *
     * @return whether a descriptor was executed
     */
    public boolean executeNext() {
        if (!ready()) {
            return false;
        }
        if (halted) {
            stepBudget.decrementAndGet();
        }
        QueueMemory q = hw.queue();
        long h = hw.iqhRaw();
        int off = (int) h;
        long lo = q.lo(off);
        long hi = q.hi(off);
        if (Descriptors.reservedBits(lo, hi) != 0) {
            // Invalid descriptor: stop here, IQH at the bad descriptor, until IQE is cleared.
            hw.setFstsBits(DmarHardware.FSTS_IQE);
            invalidDescriptors++;
            return false;
        }
        execute(lo, hi);
        hw.setIqh((h + Descriptors.DESCR_SIZE) & (q.sizeBytes() - 1));
        return true;
    }

    private void execute(long lo, long hi) {
        switch (Descriptors.type(lo)) {
            case (int) Descriptors.IOTLB_INV -> {
                int did = Descriptors.did(lo);
                long gran = lo & Descriptors.IOTLB_GRAN_MASK;
                if (gran == Descriptors.IOTLB_PAGE) {
                    int am = (int) (hi & Descriptors.IOTLB_AM_MASK);
                    long addr = hi & Descriptors.IOTLB_ADDR_MASK & -(1L << (am + 12));
                    iotlb.invalidatePages(did, addr, am);
                    iotlbPageDescriptors++;
                } else if (gran == Descriptors.IOTLB_DOM) {
                    iotlb.invalidateDomain(did);
                } else {
                    iotlb.invalidateAll();
                }
                iotlbDescriptors++;
            }
            case (int) Descriptors.CTX_INV -> {
                long gran = lo & Descriptors.CTX_GRAN_MASK;
                if (gran == Descriptors.CTX_GLOB) {
                    remapper.invalidateContextAll();
                } else if (gran == Descriptors.CTX_DOM) {
                    remapper.invalidateContextDomain(Descriptors.did(lo));
                } else {
                    remapper.invalidateContextDevice((int) (lo >>> Descriptors.CTX_SID_SHIFT) & 0xFFFF,
                            (int) (lo >>> Descriptors.CTX_FM_SHIFT) & 3);
                }
                contextDescriptors++;
            }
            case (int) Descriptors.IEC_INV -> iecDescriptors++; // no interrupt remapping modelled
            case (int) Descriptors.WAIT -> {
                // Counted before the status write: whoever sees the completion sees the count.
                waitDescriptors++;
                if ((lo & Descriptors.WAIT_SW) != 0) {
                    long addr = hi & Descriptors.WAIT_ADDR_MASK;
                    IntConsumer word = hw.statusWord(addr);
                    int data = Descriptors.waitStatusData(lo);
                    if (word != null) {
                        word.accept(data);
                    } else if (hw.memory().contains(addr, 4)) {
                        hw.memory().writeIntVolatile(addr, data);
                        statusWritesToMemory++;
                    }
                }
                if ((lo & Descriptors.WAIT_IF) != 0 && hw.setIwc()) {
                    iwcSets++;
                    if (hw.deliverOrPend()) {
                        interrupts++;
                    }
                }
            }
            default -> throw new AssertionError("validated above");
        }
    }

    /** An interrupt raised outside a wait descriptor (a pending one delivered on unmask). */
    void countInterrupt() {
        interrupts++;
    }

    // ---- halting and single-stepping ----

    /** Halts the engine before its next descriptor. Descriptors stay queued; IQH stays. */
    void halt() {
        stepBudget.set(0);
        halted = true;
    }

    /** Lets a halted engine run freely again. */
    void resume() {
        halted = false;
    }

    /** Lets a halted engine execute {@code n} more descriptors. */
    void step(int n) {
        stepBudget.addAndGet(n);
    }

    // ---- statistics ----

    long iotlbDescriptors() {
        return iotlbDescriptors;
    }

    long iotlbPageDescriptors() {
        return iotlbPageDescriptors;
    }

    long waitDescriptors() {
        return waitDescriptors;
    }

    long contextDescriptors() {
        return contextDescriptors;
    }

    long iecDescriptors() {
        return iecDescriptors;
    }

    long interrupts() {
        return interrupts;
    }

    long iwcSets() {
        return iwcSets;
    }

    long invalidDescriptors() {
        return invalidDescriptors;
    }

    long statusWritesToMemory() {
        return statusWritesToMemory;
    }
}
