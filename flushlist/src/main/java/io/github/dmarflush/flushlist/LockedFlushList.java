package io.github.dmarflush.flushlist;

import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The pre-2022 TLB flush list: a FIFO guarded by the unit lock, whose consumer takes that
 * lock for every entry it removes, as FreeBSD's {@code tlb_flush_entries} {@code TAILQ}
 * and {@code dmar_qi_task} before the zombie-head list replaced them
 * ({@code sys/x86/iommu/intel_qi.c}, FreeBSD 13).
 *
 * <p>It is the baseline that every measurement compares {@link ZombieHeadFlushList}
 * against. Its cost is not in the list operations but in the locking: the consumer
 * acquires the unit lock once per drain plus once per released entry, competing with the
 * CPUs that hold the same lock while they emit invalidation descriptors.
 *
 * <h2>Implementation notes</h2>
 * {@code first} and {@code last} are plain fields guarded by the unit lock; entries are
 * linked through {@link FlushEntry}'s link with plain stores. {@link #drain} holds the lock
 * while it reads the front entry and its wait sequence and unlinks it, drops the lock
 * around the two reclaim callbacks, then takes it again for the next entry.
 *
 * <h2>Thread-safety</h2>
 * {@link #enqueue}: the caller holds the unit lock (checked when it is a
 * {@link ReentrantLock}). {@link #drain}: takes the unit lock itself, so more than one
 * consumer is harmless; the caller must <em>not</em> hold it.
 *
 * @param <E> the entry type
 */
public final class LockedFlushList<E extends FlushEntry> implements TlbFlushList<E> {

    private final Lock unitLock;
    private final Reclaimer<? super E> reclaimer;
    /** Guarded by {@link #unitLock}. */
    private E first;
    /** Guarded by {@link #unitLock}. */
    private E last;

    /**
     * Creates an empty list guarded by {@code unitLock}.
     *
     * @param unitLock the DMAR unit lock ({@code dmarhw}); producers hold it to enqueue,
     *     and drain takes it per entry
     * @param reclaimer the reclamation callbacks, called on the consumer thread without
     *     the unit lock
     * @throws NullPointerException if an argument is null
     */
    public LockedFlushList(Lock unitLock, Reclaimer<? super E> reclaimer) {
        this.unitLock = Objects.requireNonNull(unitLock, "unitLock");
        this.reclaimer = Objects.requireNonNull(reclaimer, "reclaimer");
    }

    /**
     * {@inheritDoc}
     *
     * <p>As {@code TAILQ_INSERT_TAIL(&unit->tlb_flush_entries, entry, dmamap_link)} in
     * {@code dmar_domain_unload_entry}.
     *
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock} not
     *     held by the calling thread
     */
    @Override
    public void enqueue(E entry) {
        Objects.requireNonNull(entry, "entry");
        if (unitLock instanceof ReentrantLock rl && !rl.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "LockedFlushList.enqueue requires the unit lock held by the calling thread");
        }
        if (entry.linkState != FlushEntry.FREE) {
            throw new EntryStillLinkedException(entry, ZombieHeadFlushList.describe(entry.linkState));
        }
        entry.linkState = FlushEntry.LINKED;
        entry.spNext(null);
        if (last == null) {
            first = entry;
        } else {
            last.spNext(entry);
        }
        last = entry;
    }

    /**
     * {@inheritDoc}
     *
     * <p>As the loop of the pre-2022 {@code dmar_qi_task}: lock; while the first entry is
     * processed, unlink it, unlock, release its item and retire it, lock again; unlock.
     * For each entry {@link Reclaimer#releaseItem} comes before
     * {@link Reclaimer#retireElement}, as {@code dmar_domain_free_entry} frees the space and
     * then the entry.
     *
     * @throws IllegalMonitorStateException if the unit lock is a {@link ReentrantLock}
     *     already held by the calling thread
     */
    @Override
    @SuppressWarnings("unchecked")
    public int drain(SeqProcessed processed) {
        Objects.requireNonNull(processed, "processed");
        if (unitLock instanceof ReentrantLock rl && rl.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "LockedFlushList.drain takes the unit lock itself; call it without holding it");
        }
        int released = 0;
        unitLock.lock();
        try {
            for (;;) {
                E entry = first;
                if (entry == null || !processed.processed(entry.waitSeq())) {
                    break;
                }
                first = (E) entry.nextPlain();
                if (first == null) {
                    last = null;
                }
                entry.spNext(null);
                // Not free until retired: an enqueue from releaseItem is refused, as on the
                // zombie-head list, where the entry is the zombie during releaseItem.
                entry.linkState = FlushEntry.RELEASING;
                unitLock.unlock();
                try {
                    try {
                        reclaimer.releaseItem(entry);
                    } finally {
                        entry.linkState = FlushEntry.FREE;
                    }
                    reclaimer.retireElement(entry);
                    released++;
                } finally {
                    unitLock.lock();
                }
            }
        } finally {
            unitLock.unlock();
        }
        return released;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Takes the unit lock.
     */
    @Override
    public boolean isEmpty() {
        unitLock.lock();
        try {
            return first == null;
        } finally {
            unitLock.unlock();
        }
    }
}
