package io.github.dmarflush.sim.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, or a bare number of seconds. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        Matcher m = FORM.matcher(value.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration (examples: 500ms, 10s, 2m)");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> n;
            case "m" -> n * 60_000;
            case "h" -> n * 3_600_000;
            default -> n * 1000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
}
