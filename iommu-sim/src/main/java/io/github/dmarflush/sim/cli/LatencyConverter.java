package io.github.dmarflush.sim.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * Parses per-type descriptor latencies: {@code iotlb=300,wait=100,ctx=0,iec=0} (ns); a bare
 * number sets every type.
 */
final class LatencyConverter implements CommandLine.ITypeConverter<LatencyConverter.Latencies> {

    /**
     * Parsed latencies by descriptor type.
     *
     * @param byType ns per type name ({@code iotlb}, {@code ctx}, {@code iec}, {@code wait})
     */
    record Latencies(Map<String, Long> byType) {
        long get(String type) {
            return byType.getOrDefault(type, 0L);
        }
    }

    @Override
    public Latencies convert(String value) {
        Map<String, Long> out = new LinkedHashMap<>();
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.matches("\\d{1,12}")) {
            long n = Long.parseLong(v);
            for (String k : new String[] {"iotlb", "ctx", "iec", "wait"}) {
                out.put(k, n);
            }
            return new Latencies(out);
        }
        for (String part : v.split(",")) {
            String[] kv = part.split("=", 2);
            if (kv.length != 2 || !kv[1].matches("\\d{1,12}")
                    || !(kv[0].equals("iotlb") || kv[0].equals("ctx") || kv[0].equals("iec") || kv[0].equals("wait"))) {
                throw new CommandLine.TypeConversionException("'" + value
                        + "' is not a latency list (example: iotlb=300,wait=100; types iotlb, ctx, iec, wait; ns)");
            }
            out.put(kv[0], Long.parseLong(kv[1]));
        }
        return new Latencies(out);
    }
}
