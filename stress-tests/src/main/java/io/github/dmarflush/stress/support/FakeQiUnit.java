package io.github.dmarflush.stress.support;

import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.seeded.WaitSequencer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A small DMAR unit for one test state: the invalidation queue ring (wait descriptors
 * only), the tail register IQT, and ICS.IWC, with the hardware side stepped explicitly by
 * one actor through {@link #processNext()}.
 *
 * <h2>Who touches what</h2>
 * <ul>
 *   <li>The ring and the software tail: the thread holding the unit lock
 *       ({@link #emitWaitDescriptor}, {@link #advanceTail}); the state constructor too.</li>
 *   <li>IQT: written by {@link #advanceTail} with a volatile store (the MMIO write that
 *       hands descriptors to the hardware), read by the hardware with a volatile load: a
 *       descriptor the hardware sees is fully written.</li>
 *   <li>IQH and the interrupt count: the hardware actor only (read by an arbiter after the
 *       actors).</li>
 *   <li>IWC: set by the hardware with a CAS 0 -&gt; 1 (an interrupt is raised only on that
 *       transition, as VT-d does), cleared by the QI task with a volatile store.</li>
 * </ul>
 */
public final class FakeQiUnit implements InvalidationQueue, InvalidationCompletionStatus {

    private static final int CAPACITY = 8;

    private final int[] seq = new int[CAPACITY];
    private final boolean[] interrupt = new boolean[CAPACITY];
    private final boolean[] statusWrite = new boolean[CAPACITY];
    /** Descriptors written so far (software tail). Unit lock. */
    private int written;
    /** IQT. */
    private volatile int iqt;
    /** IQH: descriptors processed. Hardware actor only. */
    private int iqh;
    /** Interrupts raised. Hardware actor only. */
    private int interrupts;
    @SuppressWarnings("unused") // through IWC
    private volatile int iwc;
    private WaitSequencer sequencer;

    private static final VarHandle IWC;

    static {
        try {
            IWC = MethodHandles.lookup().findVarHandle(FakeQiUnit.class, "iwc", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Connects the status writes to the sequencer. Call once, before any actor runs.
     *
     * @param s the unit's sequencer
     */
    public void attach(WaitSequencer s) {
        this.sequencer = s;
    }

    @Override
    public void ensure(int descriptors) {
        if (written + descriptors > CAPACITY) {
            throw new IllegalStateException("test ring of " + CAPACITY + " descriptors is full");
        }
    }

    @Override
    public void emitWaitDescriptor(int s, boolean intr, boolean sw, boolean fence) {
        ensure(1);
        seq[written] = s;
        interrupt[written] = intr;
        statusWrite[written] = sw;
        written++;
    }

    @Override
    public void advanceTail() {
        iqt = written;
    }

    /**
     * Hardware: processes the next descriptor the tail has made visible, if any: its
     * status write, then IWC and the interrupt.
     *
     * @return true if a descriptor was processed
     */
    public boolean processNext() {
        if (iqh >= iqt) {
            return false;
        }
        int i = iqh;
        if (statusWrite[i]) {
            sequencer.statusWrite(seq[i]);
        }
        if (interrupt[i] && IWC.compareAndSet(this, 0, 1)) {
            interrupts++;
        }
        iqh = i + 1;
        return true;
    }

    /** Hardware: processes descriptors until it has done {@code n} in all, spinning on IQT. */
    public void processUntil(int n) {
        while (iqh < n) {
            if (!processNext()) {
                Thread.onSpinWait();
            }
        }
    }

    /** @return descriptors processed so far (IQH); hardware actor or after the actors */
    public int processedCount() {
        return iqh;
    }

    /** @return interrupts raised so far; hardware actor or after the actors */
    public int interrupts() {
        return interrupts;
    }

    @Override
    public boolean iwc() {
        return (int) IWC.getVolatile(this) != 0;
    }

    @Override
    public void clearIwc() {
        IWC.setVolatile(this, 0);
    }
}
