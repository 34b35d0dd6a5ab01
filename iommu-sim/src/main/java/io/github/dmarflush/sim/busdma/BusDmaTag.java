package io.github.dmarflush.sim.busdma;

import io.github.dmarflush.sim.gas.GasConstraints;
import java.util.Objects;

/**
 * A busdma tag: what a device can address and how a buffer may be split into segments, as
 * the arguments of FreeBSD's {@code bus_dma_tag_create}.
 *
 * @param constraints alignment, boundary, lowaddr and highaddr of every segment's IOVA range
 * @param maxsize the largest buffer a map of this tag loads, bytes
 * @param nsegments the most segments one load may produce
 * @param maxsegsz the largest segment, bytes
 */
public record BusDmaTag(GasConstraints constraints, long maxsize, int nsegments, long maxsegsz) {

    /**
     * @throws IllegalArgumentException if a size or count is not positive
     */
    public BusDmaTag {
        Objects.requireNonNull(constraints, "constraints");
        if (maxsize < 1 || nsegments < 1 || maxsegsz < 1) {
            throw new IllegalArgumentException("maxsize, nsegments and maxsegsz must be positive");
        }
    }

    /**
     * A tag with no address constraint.
     *
     * @param maxsize the largest buffer, bytes
     * @param nsegments the most segments per load
     * @param maxsegsz the largest segment, bytes
     * @return the tag
     */
    public static BusDmaTag unconstrained(long maxsize, int nsegments, long maxsegsz) {
        return new BusDmaTag(GasConstraints.NONE, maxsize, nsegments, maxsegsz);
    }
}
