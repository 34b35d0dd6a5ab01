package io.github.dmarflush.sim.busdma;

import io.github.dmarflush.sim.driver.IommuMapEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * A busdma map: the IOVA ranges one buffer is loaded at, as FreeBSD's
 * {@code struct bus_dmamap_iommu} with its {@code map_entries} list. Owned by one thread at
 * a time (the driver that loads and unloads it); not thread-safe.
 */
public final class BusDmaMap {

    final List<IommuMapEntry> entries = new ArrayList<>(4);

    BusDmaMap() {
    }

    /** @return whether the map holds a loaded buffer */
    public boolean isLoaded() {
        return !entries.isEmpty();
    }
}
