package io.github.dmarflush.flushlist;

/**
 * Thrown by {@link TlbFlushList#enqueue} when the entry is still on a list, waiting or as
 * a zombie head. Linking it again would cut the list it is on; the list is left unchanged.
 */
public final class EntryStillLinkedException extends IllegalStateException {

    EntryStillLinkedException(FlushEntry entry, String where) {
        super("entry " + entry + " is still " + where
                + "; enqueue only an entry that the reclaimer has retired or that was never enqueued");
    }
}
