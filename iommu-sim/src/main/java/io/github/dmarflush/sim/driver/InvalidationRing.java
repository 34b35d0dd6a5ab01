package io.github.dmarflush.sim.driver;

import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.sim.hw.Descriptors;
import io.github.dmarflush.sim.hw.DmarHardware;
import io.github.dmarflush.sim.hw.QueueMemory;
import java.util.Objects;

/**
 * The software side of a unit's invalidation queue, as the {@code inv_queue*} fields of
 * FreeBSD's {@code struct dmar_unit} with {@code dmar_qi_ensure}, {@code dmar_qi_emit},
 * {@code dmar_qi_emit_wait_descr} and {@code dmar_qi_advance_tail}
 * ({@code sys/x86/iommu/intel_qi.c}): descriptors written into the ring in physical memory,
 * IQT written to the hardware.
 *
 * <h2>Queue space</h2>
 * One slot always stays free, so that IQH == IQT means empty and never full. {@link #ensure}
 * trusts its cached free space while it suffices; otherwise it re-reads IQH, and while the
 * ring is still short it publishes what it has written (advances IQT, so the hardware can
 * make room) and spins, as {@code dmar_qi_ensure}. Each call that has to wait is one
 * queue-full event.
 *
 * <p>Not thread-safe: every method but the counters is called under the unit lock.
 */
public final class InvalidationRing implements InvalidationQueue {

    private final DmarHardware hw;
    private final QueueMemory queue;
    private final int size;
    private final long statusAddress;
    /** Software tail (bytes), guarded by dmarhw. */
    private int tail;
    /** Free bytes known without re-reading IQH, guarded by dmarhw. */
    private int avail;
    private volatile long queueFullEvents;
    private volatile long queueFullSpins;
    private volatile long descriptorsEmitted;

    /**
     * @param hw the unit's hardware (IQH, IQT)
     * @param queue the ring's memory, already programmed into IQA
     * @param statusAddress where wait descriptors with SW make the hardware write
     */
    InvalidationRing(DmarHardware hw, QueueMemory queue, long statusAddress) {
        this.hw = Objects.requireNonNull(hw, "hw");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.size = queue.sizeBytes();
        this.statusAddress = statusAddress;
        this.avail = size - Descriptors.DESCR_SIZE;
    }

    private int bytesFor(int descriptors) {
        int bytes = descriptors * Descriptors.DESCR_SIZE;
        if (bytes > size - Descriptors.DESCR_SIZE) {
            throw new IllegalArgumentException(descriptors + " descriptors do not fit a ring of "
                    + queue.slots() + " slots (one stays free)");
        }
        return bytes;
    }

    /** Re-reads IQH and recomputes the free space. */
    private void refreshAvail() {
        int head = (int) hw.readIqh();
        avail = head - tail - Descriptors.DESCR_SIZE;
        if (head <= tail) {
            avail += size;
        }
    }

    /**
     * Whether {@code descriptors} more fit without waiting: the cached free space, or else
     * the free space after re-reading IQH, as the first pass of {@link #ensure}. For a
     * simulated CPU that must spin on the ring in simulated time before its step.
     *
     * @param descriptors how many, at least 1
     * @return true if {@link #ensure} would not wait now
     */
    public boolean hasRoomFor(int descriptors) {
        int bytes = bytesFor(descriptors);
        if (bytes <= avail) {
            return true;
        }
        refreshAvail();
        return bytes <= avail;
    }

    /**
     * Counts a wait for ring space that a simulated CPU makes before its step (virtual time),
     * as {@link #ensure} counts its own: one queue-full event per wait, one spin per look at
     * IQH that still found the ring short.
     *
     * @param spins looks at IQH that found the ring short, 0 for the event itself
     */
    public void countWait(long spins) {
        if (spins == 0) {
            queueFullEvents++;
        } else {
            queueFullSpins += spins;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>As {@code dmar_qi_ensure}: re-reads IQH only when the cached free space is short,
     * and while the ring is full advances IQT (so the hardware sees what is written) and
     * spins. The caller holds {@code dmarhw}.
     */
    @Override
    public void ensure(int descriptors) {
        int bytes = bytesFor(descriptors);
        boolean waited = false;
        long spins = 0;
        for (;;) {
            if (bytes <= avail) {
                break;
            }
            refreshAvail();
            if (bytes <= avail) {
                break;
            }
            if (!waited) {
                waited = true;
                queueFullEvents++;
            }
            advanceTail();
            hw.engineDriver().cpuSpinWait(++spins);
        }
        if (spins > 0) {
            queueFullSpins += spins;
        }
        avail -= bytes;
    }

    /**
     * Writes one descriptor at the software tail (not yet visible to the hardware). The caller
     * has made room with {@link #ensure}.
     *
     * @param lo the low quadword
     * @param hi the high quadword
     */
    void emit(long lo, long hi) {
        queue.write(tail, lo, hi);
        tail = (tail + Descriptors.DESCR_SIZE) & (size - 1);
        descriptorsEmitted++;
    }

    /** {@inheritDoc} As {@code dmar_qi_emit_wait_descr}. */
    @Override
    public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
        emit(Descriptors.waitLo(seq, interrupt, statusWrite, fence),
                statusWrite ? Descriptors.waitHi(statusAddress) : 0);
    }

    /** {@inheritDoc} As {@code dmar_qi_advance_tail}. */
    @Override
    public void advanceTail() {
        hw.writeIqt(tail);
    }

    /** @return the software tail, bytes (exact under {@code dmarhw}) */
    public int softwareTail() {
        return tail;
    }

    /** @return the ring's memory */
    public QueueMemory memory() {
        return queue;
    }

    /** @return times {@link #ensure} found the ring full and had to wait */
    public long queueFullEvents() {
        return queueFullEvents;
    }

    /** @return spin iterations spent waiting for ring space */
    public long queueFullSpins() {
        return queueFullSpins;
    }

    /** @return all descriptors written */
    public long descriptorsEmitted() {
        return descriptorsEmitted;
    }
}
