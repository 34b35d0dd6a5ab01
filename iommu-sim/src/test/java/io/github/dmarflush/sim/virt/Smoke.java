package io.github.dmarflush.sim.virt;

import io.github.dmarflush.sim.MachineConfig;
import io.github.dmarflush.sim.SimMachine;
import io.github.dmarflush.sim.cost.CostModel;
import io.github.dmarflush.sim.driver.FlushStrategy;
import io.github.dmarflush.sim.report.RunReport;
import io.github.dmarflush.sim.workload.RunResult;
import io.github.dmarflush.sim.workload.WorkloadConfig;
import java.time.Duration;

public class Smoke {
    public static void main(String[] a) {
        int cpus = Integer.parseInt(a[0]);
        int streams = Integer.parseInt(a[1]);
        long ms = Long.parseLong(a[2]);
        for (FlushStrategy s : new FlushStrategy[] {FlushStrategy.LOCKED, FlushStrategy.FLUSHLIST}) {
            CostModel c = CostModel.builtIn();
            VirtualClock clock = new VirtualClock(c, cpus);
            MachineConfig mc = MachineConfig.defaults(s);
            long t0 = System.nanoTime();
            try (SimMachine m = new SimMachine(mc, clock)) {
                WorkloadConfig wc = new WorkloadConfig(1, Duration.ofMillis(ms / 4), Duration.ofMillis(ms), 1500, 7);
                RunResult r = new VirtualTcpMaerts(m, wc, streams, false).run();
                System.out.print(RunReport.format(r));
            }
            double host = (System.nanoTime() - t0) / 1e9;
            System.err.printf("host %.2f s, %d events, %.2f M events/s%n", host, clock.loop().eventsFired(),
                    clock.loop().eventsFired() / host / 1e6);
        }
    }
}
