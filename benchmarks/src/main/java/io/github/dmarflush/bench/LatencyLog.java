package io.github.dmarflush.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Carries the latency histograms out of the forked benchmark JVMs: one line per trial,
 * {@code candidate TAB base64(compressed histogram)}, appended to the file named by the
 * system property {@value #PROPERTY}. JMH's result JSON has no place for a distribution
 * recorded by the benchmark itself, so the report reads this file beside it.
 */
public final class LatencyLog {

    /** The system property naming the log file (passed to the forks by the runner). */
    public static final String PROPERTY = "flushbench.latency.out";

    private LatencyLog() {
    }

    /**
     * Prints the percentiles of {@code h} (ns) and appends it to the log if one is set.
     *
     * @param candidate the candidate's name
     * @param h the enqueue-to-drain latencies, ns
     * @throws IOException if the log cannot be written
     */
    static void write(String candidate, Histogram h) throws IOException {
        System.out.printf("%n[latency] %s: n=%d p50=%d ns p99=%d ns p99.9=%d ns max=%d ns%n",
                candidate, h.getTotalCount(), h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
        String file = System.getProperty(PROPERTY);
        if (file == null || file.isEmpty()) {
            return;
        }
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(buf);
        String line = candidate + "\t" + Base64.getEncoder().encodeToString(
                java.util.Arrays.copyOf(buf.array(), len)) + "\n";
        Files.writeString(Path.of(file), line, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * Reads a log back, merging the histograms of each candidate (in first-seen order).
     *
     * @param file the log
     * @return candidate name to merged histogram
     * @throws IOException if the file cannot be read or a line is malformed
     */
    public static Map<String, Histogram> read(Path file) throws IOException {
        Map<String, Histogram> out = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            int tab = line.indexOf('\t');
            if (tab < 0) {
                throw new IOException("malformed latency line: " + line);
            }
            byte[] bytes = Base64.getDecoder().decode(line.substring(tab + 1).trim());
            Histogram h;
            try {
                h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
            } catch (DataFormatException e) {
                throw new IOException("bad histogram for " + line.substring(0, tab), e);
            }
            out.merge(line.substring(0, tab), h, (a, b) -> {
                a.add(b);
                return a;
            });
        }
        return out;
    }
}
