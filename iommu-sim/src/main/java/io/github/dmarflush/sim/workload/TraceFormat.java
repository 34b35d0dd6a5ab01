package io.github.dmarflush.sim.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text format of Linux's {@code iommu:map} and {@code iommu:unmap} tracepoints
 * ({@code include/trace/events/iommu.h}) as {@code /sys/kernel/tracing/trace} prints them:
 *
 * <pre>
 * map: IOMMU: iova=0x00000000fffe0000 - 0x00000000ffff0000 paddr=0x0000000123456000 size=65536
 * unmap: IOMMU: iova=0x00000000fffe0000 - 0x00000000ffff0000 size=65536 unmapped_size=65536
 * </pre>
 *
 * optionally preceded by ftrace's prefix ({@code task-pid [cpu] flags timestamp: }). Blank
 * lines and {@code #} comments are skipped, and so are other tracepoints' lines (an ftrace
 * prefix followed by another event name). Anything else is malformed: parsing stops with the
 * file name and line number. Addresses are unsigned 64-bit hexadecimal; {@code iova - end}
 * must span exactly {@code size} bytes.
 */
public final class TraceFormat {

    private TraceFormat() {
    }

    /**
     * One map or unmap event.
     *
     * @param line the line number in the file, from 1
     * @param unmap true for {@code iommu:unmap}
     * @param iova start of the range
     * @param size bytes
     * @param paddr physical address ({@code map} only, else 0)
     * @param unmappedSize what the kernel reported as unmapped ({@code unmap} only)
     */
    public record Event(int line, boolean unmap, long iova, long size, long paddr, long unmappedSize) {
    }

    /** A line that is neither a map or unmap event, a comment, nor another tracepoint. */
    public static final class MalformedTraceException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedTraceException(String message) {
            super(message);
        }
    }

    private static final String HEX = "0x([0-9a-fA-F]{1,16})";
    private static final Pattern MAP = Pattern.compile(
            "(?:^|\\s)map: IOMMU: iova=" + HEX + " - " + HEX + " paddr=" + HEX + " size=(\\d{1,20})\\s*$");
    private static final Pattern UNMAP = Pattern.compile(
            "(?:^|\\s)unmap: IOMMU: iova=" + HEX + " - " + HEX + " size=(\\d{1,20}) unmapped_size=(\\d{1,20})\\s*$");
    /** ftrace's prefix and an event name: {@code task-pid [cpu] flags? timestamp: event:}. */
    private static final Pattern OTHER_EVENT = Pattern.compile(
            "^\\s*\\S.*-\\d+\\s+(?:\\(\\s*[-\\d]+\\)\\s+)?\\[\\d+\\]\\s+(?:\\S+\\s+)?\\d+\\.\\d+:\\s+\\w+:.*$");

    /**
     * Reads a whole trace.
     *
     * @param file the trace file
     * @return the events in file order
     * @throws IOException if the file cannot be read
     * @throws MalformedTraceException naming the file and line of the first malformed line;
     *     also for a file that is not UTF-8 text or that holds no map or unmap event
     */
    public static List<Event> read(Path file) throws IOException, MalformedTraceException {
        List<Event> out = new ArrayList<>();
        int n = 0;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                n++;
                Event e = parseLine(line, n, file.toString());
                if (e != null) {
                    out.add(e);
                }
            }
        } catch (java.nio.charset.CharacterCodingException e) {
            // The reader decodes ahead of the line it returns: the bad bytes are somewhere
            // after line n, not necessarily on line n + 1.
            throw new MalformedTraceException(file + ": not UTF-8 text" + (n == 0 ? "" : " (after line " + n + ")"));
        }
        if (out.isEmpty()) {
            throw new MalformedTraceException(file + ": no iommu:map or iommu:unmap event in " + n + " lines");
        }
        return out;
    }

    /**
     * Parses one line.
     *
     * @param line the text
     * @param lineNo its number, from 1
     * @param fileName the file's name, for the error message
     * @return the event, or null for a line to skip
     * @throws MalformedTraceException if the line is malformed
     */
    public static Event parseLine(String line, int lineNo, String fileName) throws MalformedTraceException {
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#")) {
            return null;
        }
        if (t.contains("map: IOMMU:")) {
            Matcher m = MAP.matcher(t);
            if (m.find()) {
                long start = hex(m.group(1), lineNo, fileName, line);
                long end = hex(m.group(2), lineNo, fileName, line);
                long paddr = hex(m.group(3), lineNo, fileName, line);
                long size = dec(m.group(4), lineNo, fileName, line);
                checkSpan(start, end, size, lineNo, fileName, line);
                return new Event(lineNo, false, start, size, paddr, 0);
            }
            m = UNMAP.matcher(t);
            if (m.find()) {
                long start = hex(m.group(1), lineNo, fileName, line);
                long end = hex(m.group(2), lineNo, fileName, line);
                long size = dec(m.group(3), lineNo, fileName, line);
                long unmapped = dec(m.group(4), lineNo, fileName, line);
                checkSpan(start, end, size, lineNo, fileName, line);
                return new Event(lineNo, true, start, size, 0, unmapped);
            }
            throw malformed(fileName, lineNo, t.contains("unmap: IOMMU:")
                    ? "an iommu:unmap event needs iova=0x... - 0x... size=N unmapped_size=N"
                    : "an iommu:map event needs iova=0x... - 0x... paddr=0x... size=N", line);
        }
        if (OTHER_EVENT.matcher(t).matches()) {
            return null;
        }
        throw malformed(fileName, lineNo, "not a trace line", line);
    }

    private static void checkSpan(long start, long end, long size, int lineNo, String fileName, String line)
            throws MalformedTraceException {
        if (end - start != size) {
            throw malformed(fileName, lineNo, String.format(Locale.ROOT,
                    "iova range 0x%x - 0x%x does not span size=%s", start, end, Long.toUnsignedString(size)), line);
        }
    }

    private static long hex(String s, int lineNo, String fileName, String line) throws MalformedTraceException {
        try {
            return Long.parseUnsignedLong(s, 16);
        } catch (NumberFormatException e) {
            throw malformed(fileName, lineNo, "bad hexadecimal number 0x" + s, line);
        }
    }

    private static long dec(String s, int lineNo, String fileName, String line) throws MalformedTraceException {
        try {
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw malformed(fileName, lineNo, "number out of range " + s, line);
        }
    }

    private static MalformedTraceException malformed(String file, int lineNo, String why, String line) {
        String shown = line.length() > 120 ? line.substring(0, 117) + "..." : line;
        return new MalformedTraceException(file + ":" + lineNo + ": malformed trace line (" + why + "): " + shown.strip());
    }

    /**
     * @param iova start
     * @param paddr physical address
     * @param size bytes
     * @return the event text of an {@code iommu:map} line
     */
    public static String formatMap(long iova, long paddr, long size) {
        return String.format(Locale.ROOT, "map: IOMMU: iova=0x%016x - 0x%016x paddr=0x%016x size=%d",
                iova, iova + size, paddr, size);
    }

    /**
     * @param iova start
     * @param size bytes
     * @return the event text of an {@code iommu:unmap} line
     */
    public static String formatUnmap(long iova, long size) {
        return String.format(Locale.ROOT, "unmap: IOMMU: iova=0x%016x - 0x%016x size=%d unmapped_size=%d",
                iova, iova + size, size, size);
    }
}
