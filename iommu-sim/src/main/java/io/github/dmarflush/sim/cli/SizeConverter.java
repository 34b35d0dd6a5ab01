package io.github.dmarflush.sim.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses a byte count: {@code 4096}, {@code 128k}, {@code 2m}, {@code 1g} (binary units). */
final class SizeConverter implements CommandLine.ITypeConverter<Long> {

    private static final Pattern FORM = Pattern.compile("(\\d{1,12})([kmg]?)(?:i?b)?");

    @Override
    public Long convert(String value) {
        Matcher m = FORM.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a size (examples: 4096, 128k, 2m)");
        }
        long n = Long.parseLong(m.group(1));
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        if (n > Long.MAX_VALUE >> shift) {
            // 17179869184g shifted to 0 and was reported as "got 0"
            throw new CommandLine.TypeConversionException("'" + value + "' is too large");
        }
        return n << shift;
    }
}
