package io.github.dmarflush.flushlist;

/**
 * Thrown by {@link TlbFlushList#enqueue} when the entry is still on a list, waiting or as
 * a zombie head, and by the {@link ZombieHeadFlushList} constructor for such a dummy.
 * Linking it again would cut the list it is on; the list is left unchanged. FreeBSD's
 * {@code iommu_qi_invalidate_locked} does not check this.
 */
public final class EntryStillLinkedException extends IllegalStateException {

    EntryStillLinkedException(FlushEntry entry, String where) {
        super("entry " + entry + " is still " + where
                + "; enqueue only an entry that the reclaimer has retired or that was never enqueued");
    }
}
