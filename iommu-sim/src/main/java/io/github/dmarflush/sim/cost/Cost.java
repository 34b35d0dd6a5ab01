package io.github.dmarflush.sim.cost;

/**
 * The numbers the virtual-time model takes from its cost file: each step's time, the
 * hardware's latencies, and the few settings of the machine under test that the model needs.
 * Every one is given in the file with its value and its source.
 */
public enum Cost {
    /** CPU time per received frame in {@code iflib_rxeof} outside {@code dmarhw}: the descriptor, the buffer's sync, the page-table clear of its unload. */
    RX_RXEOF_NS("rx.rxeof_ns", "ns", 0, 1_000_000_000L),
    /** CPU time per buffer in {@code _iflib_fl_refill} outside {@code iodom}: a new cluster, the page-table fill of its load, the descriptor. */
    RX_REFILL_NS("rx.refill_ns", "ns", 0, 1_000_000_000L),
    /** CPU time per received packet up the stack ({@code if_input}: TCP/IP input, the socket buffer). */
    RX_STACK_NS("rx.stack_ns", "ns", 0, 1_000_000_000L),
    /** {@code dmarhw} held by {@code iommu_domain_unload} for one entry: the invalidation and wait descriptors and the IQT write. */
    UNLOAD_HOLD_NS("unload.hold_ns", "ns", 0, 1_000_000_000L),
    /** {@code iodom} held by {@code iommu_gas_map}: the free-space search and the tree insert. */
    GAS_MAP_HOLD_NS("gas_map.hold_ns", "ns", 0, 1_000_000_000L),
    /** {@code iodom} held by {@code dmar_domain_free_entry}: the tree removal of a freed range. */
    GAS_FREE_HOLD_NS("gas_free.hold_ns", "ns", 0, 1_000_000_000L),
    /** The QI task's work per entry to test and dequeue it (under {@code dmarhw} in the locked design). */
    TASK_ENTRY_NS("task.entry_ns", "ns", 0, 1_000_000_000L),
    /** The QI task's read and clear of ICS (two register accesses; under {@code dmarhw} in the locked design). */
    TASK_ICS_NS("task.ics_ns", "ns", 0, 1_000_000_000L),
    /** State A only: {@code iodom} held by {@code iommu_bus_dmamap_load_something} to link a map entry. */
    A_LOAD_HOLD_NS("busdma_a.load_hold_ns", "ns", 0, 1_000_000_000L),
    /** State A only: {@code iodom} held by {@code iommu_bus_dmamap_unload} to take the map's entries. */
    A_UNLOAD_HOLD_NS("busdma_a.unload_hold_ns", "ns", 0, 1_000_000_000L),
    /** The engine's time per page-selective IOTLB invalidation descriptor. */
    QI_IOTLB_NS("qi.iotlb_ns", "ns", 0, 1_000_000_000L),
    /** The least time between the starts of two descriptors: 0 lets the engine overlap them, its latency makes it work on one at a time. */
    QI_OCCUPANCY_NS("qi.occupancy_ns", "ns", 0, 1_000_000_000L),
    /** The engine's time per wait descriptor (status write, ICS.IWC). */
    QI_WAIT_NS("qi.wait_ns", "ns", 0, 1_000_000_000L),
    /** From the status write of a wait descriptor with IF to the QI task's {@code taskqueue_enqueue} (MSI delivery, {@code dmar_qi_intr}). */
    INTR_LATENCY_NS("intr.latency_ns", "ns", 0, 1_000_000_000L),
    /** A CPU's switch to another thread, or out of idle, before the thread runs. */
    SCHED_SWITCH_NS("sched.switch_ns", "ns", 0, 1_000_000_000L),
    /** How much every CPU step, engine descriptor and interrupt latency varies: each is drawn uniformly within plus or minus this percentage of its value. */
    VARIATION_PCT("model.variation_pct", "percent", 0, 99),
    /** One {@code cpu_spinwait()} (PAUSE) in a contended mutex's {@code lock_delay()} round. */
    LOCK_PAUSE_NS("lock.pause_ns", "ns", 1, 1_000_000),
    /** {@code lock_delay}'s base; the maximum is {@code lock_roundup_2(mp_ncpus) * 256}. */
    LOCK_DELAY_BASE("lock.delay_base", "pauses", 1, 256),
    /** The NIC's line rate. */
    NIC_LINE_MBPS("nic.line_mbps", "Mbit/s", 1, 1_000_000),
    /** Bytes on the wire per frame beyond the IP packet: Ethernet header, FCS, preamble, inter-frame gap. */
    NIC_WIRE_OVERHEAD_BYTES("nic.wire_overhead_bytes", "bytes", 0, 10_000),
    /** Receive buffers per NIC queue. */
    RX_RING_SLOTS("rx.ring_slots", "buffers", 1, 65_536),
    /** Packets the receive task handles before it refills and passes them up ({@code iflib}'s rx budget). */
    RX_BUDGET("rx.budget", "packets", 1, 65_536),
    /** TCP payload per 1500-byte packet, as netperf counts throughput. */
    TCP_PAYLOAD_BYTES("tcp.payload_bytes", "bytes", 1, 65_536),
    /** Priority of the DMAR QI taskqueue thread (lower is more urgent). */
    PRIO_QI_TASK("prio.qi_task", "priority", 0, 255),
    /** Priority of a NIC queue's receive task. */
    PRIO_RX("prio.rx", "priority", 0, 255);

    private final String key;
    private final String unit;
    private final long min;
    private final long max;

    Cost(String key, String unit, long min, long max) {
        this.key = key;
        this.unit = unit;
        this.min = min;
        this.max = max;
    }

    /** @return the smallest value a cost file may give (times: 0; rates, counts and the PAUSE: 1) */
    public long min() {
        return min;
    }

    /** @return the largest value a cost file may give (times: 1 s; the variation: 99%) */
    public long max() {
        return max;
    }

    /** @return the key in the cost file, e.g. {@code rx.stack_ns} */
    public String key() {
        return key;
    }

    /** @return the unit of its value */
    public String unit() {
        return unit;
    }

    /**
     * @param key a cost file key
     * @return its cost, or null if there is none
     */
    public static Cost byKey(String key) {
        for (Cost c : values()) {
            if (c.key.equals(key)) {
                return c;
            }
        }
        return null;
    }
}
