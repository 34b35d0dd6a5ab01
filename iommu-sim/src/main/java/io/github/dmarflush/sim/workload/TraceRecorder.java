package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.busdma.DmaTraceSink;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Objects;

/**
 * Writes busdma map and unmap events in the {@link TraceFormat} (with an ftrace-style prefix
 * naming the CPU thread), up to a limit, so a simulated run can be replayed later. Thread-safe.
 */
public final class TraceRecorder implements DmaTraceSink, AutoCloseable {

    private final PrintWriter out;
    private final long limit;
    private final long t0 = System.nanoTime();
    private long written;

    /**
     * @param out where the lines go; closed by {@link #close()}
     * @param limit the most events to write; later ones are dropped
     */
    public TraceRecorder(PrintWriter out, long limit) {
        this.out = Objects.requireNonNull(out, "out");
        this.limit = limit;
        out.println("# tracer: nop (iommu-sim recording; iommu:map / iommu:unmap events)");
        out.println("#");
    }

    private synchronized void line(String event) {
        if (written >= limit) {
            return;
        }
        written++;
        Thread t = Thread.currentThread();
        double ts = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "%16s-%-7d [%03d] ..... %12.6f: %s%n", t.getName(), t.getId() % 100000,
                t.getId() % 256, ts, event);
    }

    @Override
    public void map(long iova, long paddr, long size) {
        line(TraceFormat.formatMap(iova, paddr, size));
    }

    @Override
    public void unmap(long iova, long size) {
        line(TraceFormat.formatUnmap(iova, size));
    }

    /** @return events written */
    public synchronized long written() {
        return written;
    }

    /**
     * Whether writing failed (disk full, a closed pipe): {@link PrintWriter} does not throw,
     * so the caller asks after {@link #close()} before it reports the events as recorded.
     *
     * @return true if any line or the close failed
     */
    public synchronized boolean failed() {
        return out.checkError();
    }

    @Override
    public synchronized void close() {
        out.close();
    }
}
