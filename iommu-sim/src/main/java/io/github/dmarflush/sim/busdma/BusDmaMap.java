package io.github.dmarflush.sim.busdma;

import io.github.dmarflush.sim.driver.IommuMapEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * A busdma map: the IOVA ranges one buffer is loaded at and the segments handed to the
 * device, as FreeBSD's {@code struct bus_dmamap_iommu} with its {@code map_entries} list.
 * Owned by one thread at a time (the driver that loads and unloads it); not thread-safe.
 */
public final class BusDmaMap {

    final BusDmaTag tag;
    final List<IommuMapEntry> entries = new ArrayList<>(4);
    final long[] segAddr;
    final long[] segLen;
    int nseg;
    boolean loaded;
    boolean destroyed;

    BusDmaMap(BusDmaTag tag) {
        this.tag = tag;
        this.segAddr = new long[tag.nsegments()];
        this.segLen = new long[tag.nsegments()];
    }

    /** @return whether the map holds a loaded buffer */
    public boolean isLoaded() {
        return loaded;
    }

    /** @return the tag the map was created with */
    public BusDmaTag tag() {
        return tag;
    }

    /** @return the number of segments of the loaded buffer */
    public int segments() {
        return nseg;
    }

    /**
     * @param i segment index, below {@link #segments()}
     * @return the segment's IOVA ({@code ds_addr})
     */
    public long segmentAddress(int i) {
        checkSegment(i);
        return segAddr[i];
    }

    /**
     * @param i segment index, below {@link #segments()}
     * @return the segment's length, bytes ({@code ds_len})
     */
    public long segmentLength(int i) {
        checkSegment(i);
        return segLen[i];
    }

    private void checkSegment(int i) {
        if (i < 0 || i >= nseg) {
            throw new IndexOutOfBoundsException("segment " + i + " of " + nseg);
        }
    }

    /** @return the map entries (IOVA ranges) of the loaded buffer, a copy */
    public List<IommuMapEntry> entries() {
        return List.copyOf(entries);
    }
}
