package io.github.dmarflush.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.driver.FlushStrategy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TcpMaertsTest {

    @ParameterizedTest
    @EnumSource(FlushStrategy.class)
    void shortRunIsCleanAndCountsWhatHappened(FlushStrategy s) throws Exception {
        // No warm-up: the window starts with the CPU threads, before any backlog exists, so
        // even a heavily loaded machine completes packets in it.
        WorkloadConfig wc = new WorkloadConfig(3, Duration.ZERO, Duration.ofMillis(800), 1500, 7);
        RunResult r;
        QiCounters run;
        try (SimMachine m = new SimMachine(MachineConfig.defaults(s))) {
            r = new TcpMaerts(m, wc).run(ProgressListener.NONE);
            // Whole-run totals: the run ends with a quiesce, so every task pass has finished
            // and added its counts. (Within the window they can all be zero: one locked drain
            // pass may span the whole window, with IWC still set and its counts not yet added.)
            run = QiCounters.capture(m);
        }
        assertEquals(List.of(), r.problems());
        assertTrue(r.clean());
        assertTrue(r.packets() > 0);
        // Each CPU publishes its packet and byte counts together.
        assertEquals(r.packets() * 1500, r.bytes());
        // Each packet's unload emits one IOTLB and one wait descriptor; the hardware
        // processed about as many within the window (some are in flight at its edges).
        assertTrue(r.waitDescriptors() > r.packets() / 2, r.waitDescriptors() + " vs " + r.packets());
        assertTrue(r.qi().rangesFreed() > 0, "no IOVA range freed in the window");
        assertTrue(run.interrupts() > 0, "no interrupt in the whole run");
        assertEquals(run.unloadedEntries(), run.releasedFirstDrain() + run.releasedSecondDrain(),
                "every unloaded entry is released by one of the task's two drains");
        assertTrue(r.locks().stream().anyMatch(l -> l.lock().equals("dmarhw") && l.caller().equals("iommu_domain_unload")));
        String freeSite = s == FlushStrategy.LOCKED ? "dmar_domain_free_entry" : "iommu_gas_free_space";
        assertTrue(r.locks().stream().anyMatch(l -> l.caller().equals(freeSite) && l.acquisitions() > 0));
    }
}
