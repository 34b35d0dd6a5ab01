/**
 * The TLB flush list of an Intel VT-d (DMAR) IOMMU driver and its queued-invalidation
 * wait protocol, as FreeBSD implements them in {@code sys/x86/iommu}.
 *
 * <ul>
 *   <li>{@link io.github.dmarflush.flushlist} holds the list: the lock-free
 *       {@link io.github.dmarflush.flushlist.ZombieHeadFlushList} and the pre-2022
 *       {@link io.github.dmarflush.flushlist.LockedFlushList} baseline behind the same
 *       {@link io.github.dmarflush.flushlist.TlbFlushList} interface.</li>
 *   <li>{@link io.github.dmarflush.flushlist.qi} holds the (gen, seq) wait-descriptor
 *       protocol, the synchronous waiters and the QI task.</li>
 * </ul>
 *
 * The module has no dependencies beyond {@code java.base}.
 */
module io.github.dmarflush.flushlist {
    exports io.github.dmarflush.flushlist;
    exports io.github.dmarflush.flushlist.qi;
}
