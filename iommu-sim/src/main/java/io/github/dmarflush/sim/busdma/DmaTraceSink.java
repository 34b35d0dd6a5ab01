package io.github.dmarflush.sim.busdma;

/**
 * Receives the map and unmap events of a busdma path, as Linux's {@code iommu:map} and
 * {@code iommu:unmap} tracepoints would report them. Called from the CPU threads that load and
 * unload: implementations must be thread-safe. An unmap is reported before the range is
 * handed to the driver, so in the sink's order it always precedes any reuse of the range.
 */
public interface DmaTraceSink {

    /**
     * @param iova start of the mapped range
     * @param paddr physical address mapped at {@code iova}
     * @param size bytes
     */
    void map(long iova, long paddr, long size);

    /**
     * @param iova start of the range
     * @param size bytes
     */
    void unmap(long iova, long size);
}
