package io.github.dmarflush.stress.ci;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs jcstress in a child JVM and fails when it did not really pass: the build's gate for
 * the stress tests.
 *
 * <p>jcstress exits 1 when a FORBIDDEN outcome, an error or a timeout is seen, but exits 0
 * having run nothing when the test selector matches no test ("FATAL: No matching tests.")
 * or when a test has more actors than the machine has CPUs ("No scheduling is
 * possible"). This gate passes only if the child exits 0, neither message appears, and
 * the last progress line reports a non-zero number of planned results, all passed, with no
 * failure and no error.
 *
 * <p>Usage: {@code java -cp jcstress.jar io.github.dmarflush.stress.ci.JcstressGate
 * path/to/jcstress.jar [jcstress options...]}. Output is passed through as it comes. Exit
 * status 0 on a real pass, 1 otherwise, 2 on a usage error.
 */
public final class JcstressGate {

    private static final Pattern RESULTS = Pattern.compile(
            "\\(Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs\\)");

    private JcstressGate() {
    }

    /**
     * @param args the jcstress jar, then the options to pass to it
     * @throws IOException if the child cannot be started or read
     * @throws InterruptedException if interrupted while waiting for the child
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: JcstressGate path/to/jcstress.jar [jcstress options...]");
            System.exit(2);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.add("-jar");
        cmd.add(args[0]);
        for (int i = 1; i < args.length; i++) {
            cmd.add(args[i]);
        }
        System.out.println("jcstress gate: " + String.join(" ", cmd));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();

        List<String> problems = new ArrayList<>();
        Matcher last = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                System.out.println(line);
                if (line.contains("FATAL: No matching tests.")) {
                    problems.add("jcstress ran no test: the selector matched nothing (\"FATAL: No matching tests.\")");
                }
                if (line.contains("No scheduling is possible")) {
                    problems.add("jcstress skipped a test: \"" + line.trim() + "\" (keep tests to 2 actors)");
                }
                Matcher m = RESULTS.matcher(line);
                if (m.find()) {
                    last = m;
                }
            }
        }
        int rc = p.waitFor();
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;

        if (rc != 0) {
            problems.add("jcstress exited with status " + rc + " (a FORBIDDEN outcome, an error or a timeout)");
        }
        long planned = 0;
        long passed = 0;
        long failed = 0;
        if (last == null) {
            problems.add("jcstress printed no \"(Results: ...)\" line");
        } else {
            planned = Long.parseLong(last.group(1));
            passed = Long.parseLong(last.group(2));
            failed = Long.parseLong(last.group(3));
            long soft = Long.parseLong(last.group(4));
            long hard = Long.parseLong(last.group(5));
            if (planned == 0) {
                problems.add("jcstress planned 0 results: nothing was run");
            }
            if (passed != planned || failed != 0 || soft != 0 || hard != 0) {
                problems.add("jcstress results: " + last.group(0));
            }
        }
        System.out.println();
        System.out.println("jcstress gate: " + planned + " results planned, wall time " + seconds + " s");
        if (problems.isEmpty()) {
            System.out.println("jcstress: " + passed + " passed, 0 failed");
            System.exit(0);
        }
        System.out.println("jcstress: " + passed + " passed, " + Math.max(1, Math.max(failed, planned - passed)) + " failed");
        for (String s : problems) {
            System.out.println("jcstress gate FAILED: " + s);
        }
        System.exit(1);
    }
}
