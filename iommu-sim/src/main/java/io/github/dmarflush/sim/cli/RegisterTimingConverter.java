package io.github.dmarflush.sim.cli;

import io.github.dmarflush.sim.hw.RegisterTiming;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Parses {@code --mmio}: {@code read=300,write=100} (ns; a missing key keeps its default),
 * {@code 0} for free register access, or one number for both.
 */
final class RegisterTimingConverter implements CommandLine.ITypeConverter<RegisterTiming> {

    @Override
    public RegisterTiming convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.matches("\\d{1,9}")) {
            long n = Long.parseLong(v);
            return new RegisterTiming(n, n);
        }
        long read = RegisterTiming.DEFAULT.readNanos();
        long write = RegisterTiming.DEFAULT.writeNanos();
        for (String part : v.split(",")) {
            String[] kv = part.split("=", 2);
            if (kv.length != 2 || !kv[1].matches("\\d{1,9}") || !(kv[0].equals("read") || kv[0].equals("write"))) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a register timing (example: read=300,write=100; ns)");
            }
            if (kv[0].equals("read")) {
                read = Long.parseLong(kv[1]);
            } else {
                write = Long.parseLong(kv[1]);
            }
        }
        return new RegisterTiming(read, write);
    }
}
