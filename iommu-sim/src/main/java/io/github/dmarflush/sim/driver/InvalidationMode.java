package io.github.dmarflush.sim.driver;

/** When an unload's IOVA range goes back to the allocator. */
public enum InvalidationMode {
    /**
     * The unload queues the invalidation and a wait sequence, links the entry on the TLB flush
     * list and returns; the QI task frees the range once the hardware has completed the
     * invalidation (FreeBSD's default, {@code iommu_qi_invalidate_locked}).
     */
    DEFERRED("deferred"),
    /**
     * The unload queues the invalidation and a wait descriptor, sleeps until the hardware has
     * completed it, and frees the range itself (FreeBSD's {@code iommu_qi_invalidate_sync}
     * path; Linux calls this strict mode).
     */
    STRICT("strict");

    private final String cliName;

    InvalidationMode(String cliName) {
        this.cliName = cliName;
    }

    /** @return the name used on the command line and in reports */
    public String cliName() {
        return cliName;
    }
}
