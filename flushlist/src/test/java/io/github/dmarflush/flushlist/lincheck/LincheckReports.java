package io.github.dmarflush.flushlist.lincheck;

/** Cuts a Lincheck failure report down to what a reader needs first. */
public final class LincheckReports {

    private LincheckReports() {
    }

    /**
     * @param report Lincheck's failure message
     * @return its headline, the scenario table with the results, and the first line of
     *     the validation error if there is one; indented by four spaces
     */
    public static String summary(String report) {
        StringBuilder out = new StringBuilder();
        String[] lines = report.split("\n");
        int i = 0;
        while (i < lines.length && !lines[i].startsWith("= ")) {
            i++;
        }
        // The headline and the first table: up to the first blank line after it.
        for (; i < lines.length && !(lines[i].isBlank() && out.length() > 0); i++) {
            out.append("    ").append(lines[i]).append('\n');
        }
        for (String l : lines) {
            if (l.startsWith("#1: ") || l.contains("AssertionError: ")) {
                out.append("    ").append(l.trim()).append('\n');
                break;
            }
        }
        return out.toString().stripTrailing();
    }
}
