package io.github.dmarflush.flushlist.qi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.FlushEntry;
import io.github.dmarflush.flushlist.LockedFlushList;
import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.ZombieHeadFlushList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The QI task's drain / clear IWC / drain again sequence, on both lists. */
class QiTaskTest {

    static final class Entry extends FlushEntry {
        final int id;

        Entry(int id) {
            this.id = id;
        }
    }

    private final ReentrantLock unitLock = new ReentrantLock();
    private final List<Integer> released = new ArrayList<>();
    private final Reclaimer<Entry> reclaimer = new Reclaimer<>() {
        @Override
        public void releaseItem(Entry entry) {
            released.add(entry.id);
        }

        @Override
        public void retireElement(Entry element) {
        }
    };

    private TlbFlushList<Entry> list(boolean zombie) {
        return zombie ? new ZombieHeadFlushList<>(new Entry(0), reclaimer)
                : new LockedFlushList<>(unitLock, reclaimer);
    }

    /** Unmap path: sequence, wait descriptor, link, advance tail, under the lock. */
    private void unload(QiSequencer s, FakeQiHardware hw, TlbFlushList<Entry> list, int id) {
        unitLock.lock();
        try {
            Entry e = new Entry(id);
            e.setWaitSeq(s.emitWaitSeq(true));
            list.enqueue(e);
            hw.advanceTail();
        } finally {
            unitLock.unlock();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void entryCompletedBetweenFirstDrainAndIwcClearIsReleasedInTheSamePass(boolean zombie) {
        // The hardware completes entry 2 exactly when the task reads ICS, i.e. after the
        // first drain and before the clear: IWC is already 1, so no new interrupt comes.
        FakeQiHardware hw = new FakeQiHardware() {
            boolean once;

            @Override
            public boolean iwc() {
                if (!once) {
                    once = true;
                    completeAll();
                }
                return super.iwc();
            }
        };
        QiSequencer s = QiSequencer.builder(unitLock, hw).build();
        hw.sequencer = s;
        TlbFlushList<Entry> list = list(zombie);
        unload(s, hw, list, 1);
        hw.completeUpTo(1); // entry 1 completes, IWC 0 -> 1, interrupt
        assertEquals(1, hw.interrupts);
        unload(s, hw, list, 2); // not yet completed
        QiTask task = new QiTask(list, s, hw);
        task.run();
        assertEquals(List.of(1, 2), released, "entry 2 must not linger until a later interrupt");
        assertEquals(1, task.releasedByFirstDrain());
        assertEquals(1, task.releasedBySecondDrain());
        assertFalse(hw.iwc, "IWC cleared");
        assertEquals(1, hw.interrupts, "no further interrupt was raised for entry 2");
        assertTrue(list.isEmpty());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void taskReleasesOnlyProcessedEntries(boolean zombie) {
        FakeQiHardware hw = new FakeQiHardware();
        QiSequencer s = QiSequencer.builder(unitLock, hw).build();
        hw.sequencer = s;
        TlbFlushList<Entry> list = list(zombie);
        for (int i = 1; i <= 5; i++) {
            unload(s, hw, list, i);
        }
        hw.completeUpTo(3);
        QiTask task = new QiTask(list, s, hw);
        task.run();
        assertEquals(List.of(1, 2, 3), released);
        assertEquals(1, task.iwcClears());
        hw.completeAll();
        task.run();
        assertEquals(List.of(1, 2, 3, 4, 5), released);
        assertEquals(2, task.runs());
    }
}
