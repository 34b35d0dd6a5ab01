package io.github.dmarflush.sim.kern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.sim.lock.SiteStats;
import io.github.dmarflush.sim.vtime.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * The virtual-time kernel against schedules worked out by hand. Spin policy in these tests:
 * 10 ns pauses, lock_delay base 1 and max 4, so a spinner that starts at {@code s} reads the
 * lock word at {@code s+20, s+60, s+100, s+140, ...}.
 */
class KernelTest {

    static final SpinPolicy SPIN = new SpinPolicy(10, 1, 4);

    /** A program from a list of ops, recording when it exits. */
    static final class Script implements Program {
        final List<Op> ops;
        int pc;
        long exitedAt = -1;
        final EventLoop loop;

        Script(EventLoop loop, Op... ops) {
            this.loop = loop;
            this.ops = List.of(ops);
        }

        @Override
        public Op next(KThread self) {
            if (pc == ops.size()) {
                exitedAt = loop.now();
                return Op.Exit.EXIT;
            }
            return ops.get(pc++);
        }
    }

    @Test
    void spinPolicyLooksAfterEachDoublingRound() {
        assertEquals(120, SPIN.nextLook(100, 101));
        assertEquals(120, SPIN.nextLook(100, 120));
        assertEquals(160, SPIN.nextLook(100, 121));
        assertEquals(1040, SPIN.nextLook(100, 1010));
        SpinPolicy freebsd16 = new SpinPolicy(40, 1, 16 * 256);
        // rounds of 2, 4, 8, ... pauses: 80, 240, 560, 1200, 2480, 5040 ns after the start
        assertEquals(2480, freebsd16.nextLook(0, 1201));
    }

    @Test
    void aSpinnerThatBackedOffLosesTheLockToTheReleaserComingBack() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 2, 0, SPIN);
        AdaptiveMutex m = k.newMutex("dmarhw");
        AdaptiveMutex.Site s = m.site("test");
        Script a = new Script(loop, s.acquire(), Op.run(1010), m.release(), Op.run(5), s.acquire(), Op.run(100),
                m.release());
        Script b = new Script(loop, Op.run(100), s.acquire(), Op.run(10), m.release());
        k.spawn("A", 100, -1, a);
        k.spawn("B", 100, -1, b);
        k.runUntilIdle(Long.MAX_VALUE);
        // B starts spinning at 100. A releases at 1010; B's next look is at 1040, but A takes the
        // lock again at 1015 and holds it to 1115; B looks at 1120 and takes it: 1020 ns of spin.
        SiteStats st = s.stats();
        assertEquals(3, st.acquisitions());
        assertEquals(1, st.spinEvents());
        assertEquals(1020, st.spinNanos());
        assertEquals(0, st.blockEvents());
        assertEquals(1115, a.exitedAt);
        assertEquals(1130, b.exitedAt);
    }

    @Test
    void aWaiterBlocksOnAPreemptedOwnerAndLendsItItsPriority() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 1, 0, SPIN);
        AdaptiveMutex m = k.newMutex("dmarhw");
        AdaptiveMutex.Site s = m.site("test");
        Script low = new Script(loop, s.acquire(), Op.run(1000), m.release());
        Script medium = new Script(loop, Op.run(2000));
        Script high = new Script(loop, s.acquire(), Op.run(50), m.release());
        k.spawn("L", 100, -1, low);
        loop.after(200, () -> k.spawn("M", 50, -1, medium));
        loop.after(300, () -> k.spawn("H", 10, -1, high));
        k.runUntilIdle(Long.MAX_VALUE);
        // M preempts L at 200 (L holds the lock, 800 ns left); H preempts M at 300, finds the
        // owner off CPU and blocks. L, lent H's priority 10, runs before M (50): it releases at
        // 1100, H takes the lock (800 ns blocked, no spin) and exits at 1150, and only then M
        // finishes its 1900 ns left, at 3050. Without the lending M would run first and H would
        // exit at 3050.
        assertEquals(2, s.stats().acquisitions());
        assertEquals(1, s.stats().blockEvents());
        assertEquals(800, s.stats().blockNanos());
        assertEquals(0, s.stats().spinEvents());
        assertEquals(1100, low.exitedAt);
        assertEquals(1150, high.exitedAt);
        assertEquals(3050, medium.exitedAt);
        assertEquals(2, k.preemptions());
    }

    @Test
    void aSpinnerGoesToTheTurnstileWhenTheOwnerIsPreempted() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 2, 0, SPIN);
        AdaptiveMutex m = k.newMutex("iodom");
        AdaptiveMutex.Site s = m.site("test");
        Script owner = new Script(loop, s.acquire(), Op.run(1000), m.release());
        Script waiter = new Script(loop, Op.run(100), s.acquire(), m.release());
        Script urgent = new Script(loop, Op.run(400));
        k.spawn("L", 100, 0, owner);
        k.spawn("M", 100, 1, waiter);
        loop.after(300, () -> k.spawn("H", 10, 0, urgent));
        k.runUntilIdle(Long.MAX_VALUE);
        // M spins from 100. H preempts L at 300; M's next look, at 320, sees the owner off CPU:
        // M blocks. H runs to 700, L resumes and releases at 1400; M takes the lock:
        // blocked 1400 - 320 = 1080 ns, spun (1400 - 100) - 1080 = 220 ns.
        assertEquals(1, s.stats().spinEvents());
        assertEquals(220, s.stats().spinNanos());
        assertEquals(1, s.stats().blockEvents());
        assertEquals(1080, s.stats().blockNanos());
        assertEquals(700, urgent.exitedAt);
        assertEquals(1400, owner.exitedAt);
        assertEquals(1400, waiter.exitedAt);
    }

    @Test
    void sleepAndWakeupPayTheContextSwitch() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 1, 5, SPIN);
        WaitChannel ch = new WaitChannel("work");
        Script sleeper = new Script(loop, new Op.Sleep(ch), Op.run(10));
        k.spawn("T", 4, -1, sleeper);
        loop.after(100, () -> k.wakeup(ch));
        k.runUntilIdle(Long.MAX_VALUE);
        // switch in at 0 (5 ns), sleep at 5; woken at 100, the CPU leaves its idle thread for T
        // (5 ns), then T runs 10 ns.
        assertEquals(115, sleeper.exitedAt);
        assertEquals(2, k.contextSwitches());
    }

    @Test
    void driverLockViewsCheckTheSimulatedHolder() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 1, 0, SPIN);
        AdaptiveMutex m = k.newMutex("iodom");
        Lock view = m.site("iommu_gas_map");
        List<String> seen = new ArrayList<>();
        Program p = new Program() {
            int pc;

            @Override
            public Op next(KThread self) {
                switch (pc++) {
                    case 0:
                        return ((AdaptiveMutex.Site) view).acquire();
                    case 1:
                        view.lock(); // held: passes
                        view.unlock();
                        seen.add("held");
                        return m.release();
                    case 2:
                        try {
                            view.lock();
                            seen.add("not caught");
                        } catch (IllegalMonitorStateException e) {
                            seen.add("caught");
                        }
                        return Op.Exit.EXIT;
                    default:
                        throw new AssertionError();
                }
            }
        };
        k.spawn("T", 100, -1, p);
        k.runUntilIdle(Long.MAX_VALUE);
        assertEquals(List.of("held", "caught"), seen);
        view.lock(); // outside the simulation: set-up and end-of-run checks may look
    }

    @Test
    void misuseIsRefused() {
        EventLoop loop = new EventLoop();
        Kernel k = new Kernel(loop, 1, 0, SPIN);
        AdaptiveMutex m = k.newMutex("dmarhw");
        k.spawn("T", 100, -1, new Script(loop, m.release()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> k.runUntilIdle(Long.MAX_VALUE));
        assertTrue(e.getMessage().contains("not locked"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> k.spawn("U", 1, 3, new Script(loop)));
        assertThrows(IllegalArgumentException.class, () -> new SpinPolicy(0, 1, 1));
    }
}
