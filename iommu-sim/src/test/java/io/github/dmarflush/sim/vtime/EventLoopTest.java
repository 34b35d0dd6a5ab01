package io.github.dmarflush.sim.vtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLoopTest {

    @Test
    void eventsFireInTimeOrderAndTiesInSchedulingOrder() {
        EventLoop loop = new EventLoop();
        List<String> fired = new ArrayList<>();
        loop.after(30, () -> fired.add("c@" + loop.now()));
        loop.after(10, () -> fired.add("a@" + loop.now()));
        loop.after(10, () -> fired.add("b@" + loop.now()));
        loop.after(0, () -> loop.after(10, () -> fired.add("d@" + loop.now())));
        assertTrue(loop.runUntilIdle(Long.MAX_VALUE));
        assertEquals(List.of("a@10", "b@10", "d@10", "c@30"), fired);
        assertEquals(4 + 1, loop.eventsFired());
    }

    @Test
    void cancelAndRescheduleKeepTheHeapConsistent() {
        EventLoop loop = new EventLoop();
        List<Long> fired = new ArrayList<>();
        Event[] es = new Event[50];
        for (int i = 0; i < es.length; i++) {
            long t = (i * 37L) % 101;
            es[i] = loop.after(t, () -> fired.add(loop.now()));
        }
        for (int i = 0; i < es.length; i += 3) {
            assertTrue(loop.cancel(es[i]));
            assertFalse(es[i].isScheduled());
        }
        loop.schedule(es[1], 1000); // move one that was scheduled
        loop.runUntil(999);
        assertEquals(999, loop.now());
        for (int i = 1; i < fired.size(); i++) {
            assertTrue(fired.get(i - 1) <= fired.get(i), "out of order at " + i + ": " + fired);
        }
        assertEquals(50 - 17 - 1, fired.size());
        loop.runUntil(1000);
        assertEquals(1000L, fired.get(fired.size() - 1));
    }

    @Test
    void refusesThePast() {
        EventLoop loop = new EventLoop();
        loop.runUntil(100);
        assertThrows(IllegalArgumentException.class, () -> loop.schedule(Event.of(() -> { }), 99));
        assertThrows(IllegalArgumentException.class, () -> loop.runUntil(50));
        assertThrows(IllegalArgumentException.class, () -> loop.after(-1, () -> { }));
    }
}
