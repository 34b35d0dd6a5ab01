package io.github.dmarflush.seeded.matrix;

import io.github.dmarflush.flushlist.Reclaimer;
import io.github.dmarflush.flushlist.TlbFlushList;
import io.github.dmarflush.flushlist.lincheck.FlushListModel;
import io.github.dmarflush.flushlist.lincheck.FlushListScenarios;
import io.github.dmarflush.flushlist.lincheck.LincheckReports;
import io.github.dmarflush.flushlist.lincheck.ModelParts;
import io.github.dmarflush.flushlist.lincheck.PoolEntry;
import io.github.dmarflush.flushlist.lincheck.QiProtocolModel;
import io.github.dmarflush.flushlist.lincheck.QiProtocolScenarios;
import io.github.dmarflush.flushlist.lincheck.QiProtocolScenarios.Name;
import io.github.dmarflush.flushlist.lincheck.WaitProtocol;
import io.github.dmarflush.flushlist.qi.InvalidationCompletionStatus;
import io.github.dmarflush.flushlist.qi.InvalidationQueue;
import io.github.dmarflush.seeded.MsleepLock;
import io.github.dmarflush.seeded.Variant;
import io.github.dmarflush.seeded.WaitSequencer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The matrix's "lincheck" column: flushlist's Lincheck harness (model checking under
 * sequential consistency; {@code FlushListModel} against a FIFO, {@code QiProtocolModel}'s
 * progress and no-early-release checks) with the variant's parts in the library's place.
 * A list variant runs the flush-list check; a protocol variant the scenario written for it,
 * with the invocation budget of flushlist's own tests; the correct row runs the flush-list
 * check and every protocol scenario from both starts. M7 also runs its control, the library
 * over the same msleep/wakeup lock, which must pass.
 *
 * <p>Lincheck builds the tested object through a public no-argument constructor, so the
 * variant comes from {@code -Ddmarflush.variant} of the JVM this runs in (one per cell).
 */
public final class LincheckCells {

    /** The variant of this JVM. */
    static final Variant VARIANT = Variant.selected();

    private LincheckCells() {
    }

    /** The flush-list check's object. */
    public static class ListModel extends FlushListModel {
        /** Lincheck's constructor. */
        public ListModel() {
            super(Impl.ZOMBIE_HEAD, parts(VARIANT, false));
        }
    }

    /** The protocol from (0, 0x7FFFFFFF): numbers cross the sign bit. */
    public static class SignBitModel extends QiProtocolModel {
        /** Lincheck's constructor. */
        public SignBitModel() {
            super(parts(VARIANT, false), Start.SIGN_BIT);
        }
    }

    /** The protocol from (0x7FFFFFFF, 0xFFFFFFFE): numbers cross the wrap. */
    public static class WrapModel extends QiProtocolModel {
        /** Lincheck's constructor. */
        public WrapModel() {
            super(parts(VARIANT, false), Start.WRAP);
        }
    }

    /** M7's control: the library's sequencer over the msleep/wakeup lock M7 uses. */
    public static class MsleepControlModel extends QiProtocolModel {
        /** Lincheck's constructor. */
        public MsleepControlModel() {
            super(parts(Variant.CORRECT, true), Start.SIGN_BIT);
        }
    }

    /**
     * The variant's parts for the harness.
     *
     * @param v the variant
     * @param msleep build the sequencer over an {@link MsleepLock}
     * @return the parts
     */
    static ModelParts parts(Variant v, boolean msleep) {
        return new ModelParts() {
            @Override
            public TlbFlushList<PoolEntry> zombieHeadList(PoolEntry dummy, Reclaimer<PoolEntry> reclaimer) {
                return v.zombieHeadList(dummy, reclaimer);
            }

            @Override
            public WaitProtocol protocol(ReentrantLock unitLock, InvalidationQueue queue, int gen, int seq) {
                WaitSequencer s = msleep ? Variant.library(new MsleepLock(unitLock), queue, gen, seq, 0)
                        : v.sequencer(unitLock, queue, gen, seq, 0);
                return new WaitProtocol() {
                    @Override
                    public boolean processed(long gseq) {
                        return s.processed(gseq);
                    }

                    @Override
                    public long emitWaitSeq(boolean emitWait) {
                        return s.emitWaitSeq(emitWait);
                    }

                    @Override
                    public long quiesce(boolean nowait) {
                        return s.quiesce(nowait);
                    }

                    @Override
                    public void statusWrite(int seq) {
                        s.statusWrite(seq);
                    }

                    @Override
                    public Runnable task(TlbFlushList<?> list, InvalidationCompletionStatus ics) {
                        return v.qiTask(list, s, ics);
                    }
                };
            }

            @Override
            public void unmap(ModelParts.UnmapSteps s) {
                v.unmap(new io.github.dmarflush.seeded.UnmapSteps() {
                    @Override
                    public void fill() {
                        s.fill();
                    }

                    @Override
                    public void link() {
                        s.link();
                    }

                    @Override
                    public void advanceTail() {
                        s.advanceTail();
                    }
                });
            }
        };
    }

    /** One Lincheck run: a name and what it does. */
    record Run(String name, Runnable check, boolean control) {
    }

    private static Run list() {
        return new Run("flush list, model checking", () -> FlushListScenarios.modelChecking().check(ListModel.class),
                false);
    }

    private static Run signBit(Name... names) {
        List<Name> ns = List.of(names);
        return new Run("protocol from the sign bit " + (ns.isEmpty() ? "(all scenarios)" : ns.toString()),
                () -> (ns.isEmpty() ? QiProtocolScenarios.modelChecking(QiProtocolModel.Start.SIGN_BIT)
                        : QiProtocolScenarios.modelChecking(QiProtocolModel.Start.SIGN_BIT, ns)).check(SignBitModel.class),
                false);
    }

    private static Run wrap(Name... names) {
        List<Name> ns = List.of(names);
        return new Run("protocol across the wrap " + (ns.isEmpty() ? "(all scenarios)" : ns.toString()),
                () -> (ns.isEmpty() ? QiProtocolScenarios.modelChecking(QiProtocolModel.Start.WRAP)
                        : QiProtocolScenarios.modelChecking(QiProtocolModel.Start.WRAP, ns)).check(WrapModel.class),
                false);
    }

    /**
     * @param v a variant
     * @return the runs of its cell, in order
     */
    static List<Run> plan(Variant v) {
        return switch (v) {
            case CORRECT -> List.of(list(), signBit(), wrap());
            case M1, M2L, M2P, M3 -> List.of(list());
            case M4, M8 -> List.of(signBit(Name.TASK_RACES_HARDWARE));
            case M5, FREEBSD_WRAP -> List.of(wrap(Name.UNLOAD_BESIDE_TASK));
            case M6 -> List.of(signBit(Name.UNLOAD_THEN_WAIT, Name.WAITER_ALONE));
            case M7 -> List.of(new Run("control: the library over the msleep/wakeup lock [WAITER_ALONE]",
                    () -> QiProtocolScenarios.modelChecking(QiProtocolModel.Start.SIGN_BIT, List.of(Name.WAITER_ALONE))
                            .check(MsleepControlModel.class), true),
                    signBit(Name.WAITER_ALONE));
            case M9 -> List.of(signBit(Name.UNLOAD_BESIDE_TASK));
        };
    }

    /**
     * Runs the cell of {@link #VARIANT}; stops at the first failure.
     *
     * @return the failures: "run: Lincheck's headline and first lines"; empty if all passed
     * @throws IllegalStateException if a control fails
     */
    static List<String> run() {
        List<String> failures = new ArrayList<>();
        for (Run r : plan(VARIANT)) {
            long t0 = System.nanoTime();
            String message = null;
            try {
                r.check().run();
            } catch (AssertionError e) {
                message = String.valueOf(e.getMessage());
            }
            System.out.printf("[lincheck] %s: %s in %.1f s%n", r.name(), message == null ? "no failure" : "FAILED",
                    (System.nanoTime() - t0) / 1e9);
            if (message != null) {
                String summary = LincheckReports.summary(message);
                System.out.println(summary);
                if (r.control()) {
                    throw new IllegalStateException("the control failed: " + r.name() + "\n" + summary);
                }
                failures.add(r.name() + ": " + firstLines(summary));
                break;
            }
        }
        return failures;
    }

    /** Lincheck's headline and the first line that says what was violated. */
    private static String firstLines(String summary) {
        String headline = "";
        String why = "";
        for (String l : summary.split("\n")) {
            String s = l.trim();
            if (headline.isEmpty() && s.startsWith("= ")) {
                headline = s;
            }
            if (why.isEmpty() && (s.contains("AssertionError: ") || s.startsWith("#1: "))) {
                why = s.substring(Math.max(0, s.indexOf("AssertionError: ") >= 0
                        ? s.indexOf("AssertionError: ") + "AssertionError: ".length() : 0));
            }
        }
        if (why.isEmpty()) {
            for (String l : summary.split("\n")) {
                if (l.contains("|") && (l.contains("drain()") || l.contains("<hung>") || l.contains("Exception"))) {
                    why = l.trim().replaceAll("\\s+", " ");
                    break;
                }
            }
        }
        return (headline + " " + why).trim();
    }
}
