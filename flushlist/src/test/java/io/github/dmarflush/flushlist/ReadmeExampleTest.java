package io.github.dmarflush.flushlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.flushlist.qi.QiSequencer;
import io.github.dmarflush.flushlist.qi.QiTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * The README's "Using the library" examples (the protocol use and the plain-queue use),
 * compiled and run, so the README cannot drift from the API. The parts between the {@code README:} markers are the README's text, and
 * {@link #theReadmeShowsThisExample} checks that the README still shows each of them.
 */
class ReadmeExampleTest {

    /** The parts between the markers, dedented, in file order. */
    private static List<String> markedParts(List<String> source) {
        List<String> parts = new ArrayList<>();
        List<String> part = null;
        for (String line : source) {
            String t = line.strip();
            if (t.startsWith("// README: begin ")) {
                part = new ArrayList<>();
            } else if (t.startsWith("// README: end ")) {
                int indent = part.stream().filter(l -> !l.isBlank())
                        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
                parts.add(part.stream().map(l -> l.isBlank() ? "" : l.substring(indent))
                        .collect(java.util.stream.Collectors.joining("\n")));
                part = null;
            } else if (part != null) {
                part.add(line);
            }
        }
        return parts;
    }

    @Test
    void theReadmeShowsThisExample() throws java.io.IOException {
        // Surefire runs in the module directory; the README is at the repository root.
        Path module = Path.of("").toAbsolutePath();
        Path readme = module.resolveSibling("README.md");
        Path source = module.resolve("src/test/java/io/github/dmarflush/flushlist/ReadmeExampleTest.java");
        String text = Files.readString(readme).replace("\r\n", "\n");
        List<String> parts = markedParts(Files.readAllLines(source));
        assertEquals(8, parts.size(), "entry, setup, unload, task, job, queue, produce and consume parts");
        for (String part : parts) {
            assertTrue(text.contains(part), "README.md no longer shows this part of the example:\n" + part);
        }
    }

    // README: begin entry
    /** An unmapped IOVA range waiting for its IOTLB invalidation. */
    static final class MapEntry extends FlushEntry {
        long start;
        long end;
    }
    // README: end entry

    /** Stand-in for the hardware: records wait descriptors, completes them on request. */
    static final class Hardware implements InvalidationQueue, InvalidationCompletionStatus {
        final List<Integer> published = new ArrayList<>();
        final List<Integer> written = new ArrayList<>();
        QiSequencer sequencer;
        boolean iwc;

        @Override
        public void ensure(int descriptors) {
        }

        @Override
        public void emitWaitDescriptor(int seq, boolean interrupt, boolean statusWrite, boolean fence) {
            written.add(seq);
        }

        @Override
        public void advanceTail() {
            published.addAll(written);
            written.clear();
        }

        void completeAll() {
            for (int seq : published) {
                sequencer.statusWrite(seq);
                iwc = true;
            }
            published.clear();
        }

        @Override
        public boolean iwc() {
            return iwc;
        }

        @Override
        public void clearIwc() {
            iwc = false;
        }
    }

    @Test
    void theReadmeExampleRuns() {
        Hardware hw = new Hardware();
        InvalidationQueue queue = hw;
        InvalidationCompletionStatus ics = hw;
        List<String> freedRanges = new ArrayList<>();
        ArrayDeque<MapEntry> entryPool = new ArrayDeque<>();

        // README: begin setup
        ReentrantLock unitLock = new ReentrantLock(); // the DMAR unit lock
        Reclaimer<MapEntry> reclaimer = new Reclaimer<>() {
            @Override
            public void releaseItem(MapEntry e) { // invalidation complete: the range may be reused
                freedRanges.add(Long.toHexString(e.start) + "-" + Long.toHexString(e.end));
            }

            @Override
            public void retireElement(MapEntry e) { // no longer the zombie head: recycle the struct
                entryPool.push(e);
            }
        };
        ZombieHeadFlushList<MapEntry> flushList = new ZombieHeadFlushList<>(new MapEntry(), reclaimer);
        QiSequencer sequencer = QiSequencer.builder(unitLock, queue).build();
        QiTask qiTask = new QiTask(flushList, sequencer, ics);
        // README: end setup
        hw.sequencer = sequencer;

        for (long start = 0x1000; start < 0x4000; start += 0x1000) {
            MapEntry e = entryPool.isEmpty() ? new MapEntry() : entryPool.pop();
            e.start = start;
            e.end = start + 0x1000;
            // README: begin unload
            unitLock.lock();
            try {
                // ... write the IOTLB invalidation descriptors for [e.start, e.end) ...
                e.setWaitSeq(sequencer.emitWaitSeq(true)); // wait descriptor with IF and SW
                flushList.enqueue(e);                      // linked before the tail passes it
                queue.advanceTail();                       // now the hardware may run it
            } finally {
                unitLock.unlock();
            }
            // README: end unload
        }
        qiTask.run(); // nothing completed yet
        assertEquals(List.of(), freedRanges);
        hw.completeAll();
        // README: begin task
        // On the unit's task thread, after each completion interrupt:
        qiTask.run();
        // README: end task
        assertEquals(List.of("1000-2000", "2000-3000", "3000-4000"), freedRanges);
        assertTrue(flushList.isEmpty());
        assertEquals(3, entryPool.size(), "the dummy and the first two entries retired; the last is the zombie");
    }

    // README: begin job
    /** A unit of work; FlushEntry carries the list's link. */
    static final class Job extends FlushEntry {
        String name;
    }
    // README: end job

    @Test
    void theReadmePlainQueueExampleRuns() {
        List<String> done = new ArrayList<>();

        // README: begin queue
        ReentrantLock producerLock = new ReentrantLock(); // serializes the producers
        ZombieHeadFlushList<Job> jobs = new ZombieHeadFlushList<>(new Job(), new Reclaimer<Job>() {
            @Override
            public void releaseItem(Job j) { // dequeued, in FIFO order
                done.add(j.name);
            }

            @Override
            public void retireElement(Job j) { // the list holds no reference to j any more: reuse it
            }
        });
        // README: end queue

        for (String name : List.of("a", "b", "c")) {
            Job job = new Job();
            job.name = name;
            // README: begin produce
            // Any producer thread:
            producerLock.lock();
            try {
                jobs.enqueue(job);
            } finally {
                producerLock.unlock();
            }
            // README: end produce
        }
        // README: begin consume
        // The one consumer thread, without the lock:
        jobs.drain(gseq -> true);
        // README: end consume
        assertEquals(List.of("a", "b", "c"), done);
        assertTrue(jobs.isEmpty());
    }
}
