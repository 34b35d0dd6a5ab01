package io.github.dmarflush.flushlist.lincheck;

import io.github.dmarflush.flushlist.lincheck.QiProtocolModel.Start;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;

/**
 * The scenarios and options of the wakeup-protocol test. The scenarios are written out,
 * not generated: the hardware thread must complete exactly the descriptors the producers
 * emit, and the task thread must know when the hardware is done, which a random mix of
 * operations cannot promise. Every scenario has one hardware thread ({@code
 * completeNextWaitDescriptor} once per descriptor) and one task thread ({@code qiTask})
 * beside the producers; some start with entries already unloaded (the initial part), which
 * leaves fewer events for the model checker and so reaches the narrow races sooner.
 *
 * <p>Which scenario exposes which mistake is said on each factory; the seeded-bugs matrix
 * shows it. Each factory says where the second sequence number lands for a {@link Start}: across
 * the sign bit or across the 0xFFFFFFFF wrap.
 */
public final class QiProtocolScenarios {

    private QiProtocolScenarios() {
    }

    /**
     * @param start where the sequencer starts
     * @return the number of wait descriptors two sequence numbers cost from {@code start}
     *     (one more when the second one wraps)
     */
    static int descriptorsForTwo(Start start) {
        return start == Start.WRAP ? 3 : 2;
    }

    /**
     * A synchronous waiter alone beside the hardware and the task: the fewest events in
     * which the task's wakeup can race the waiter's check-then-sleep (M7).
     */
    static ExecutionScenario waiterAlone(Start start) {
        return scenario(List.of(), List.of(
                List.of(syncInvalidate()),
                hardware(1),
                List.of(qiTask(1))));
    }

    /**
     * Both entries are on the list before the threads start; the hardware completes them
     * while the task drains. The second completion can fall between the task's first
     * drain and its IWC clear (M8). Only where two numbers need no wrap: a wrap inside
     * the initial part would wait for a hardware that is not running yet.
     */
    static ExecutionScenario taskRacesHardware(Start start) {
        if (start == Start.WRAP) {
            throw new IllegalArgumentException("the second unload would wrap before the hardware runs");
        }
        return scenario(List.of(unload(1), unload(2)), List.of(
                hardware(2),
                List.of(qiTask(2))));
    }

    /**
     * Entries 1 and 2 are on the list; a producer unloads a third while the hardware and
     * the task run. If the task drains 1 and stops at 2, the element it retires is the one
     * the producer gets next: retiring the new zombie (M1) hands out the head, and linking
     * it cuts entry 2 off the list. Only where three numbers need no wrap.
     */
    static ExecutionScenario drainBesideUnload(Start start) {
        if (start == Start.WRAP) {
            throw new IllegalArgumentException("the second unload would wrap before the hardware runs");
        }
        return scenario(List.of(unload(1), unload(2)), List.of(
                List.of(unload(3)),
                hardware(3),
                List.of(qiTask(3))));
    }

    /**
     * One entry is on the list; a producer unloads a second while the hardware and the
     * task run: the producer can get the element the task just retired (M1), link an
     * entry the task reads half-filled (M2), advance IQT before the link (M9); the second
     * number crosses the boundary of {@code start} (M4, M5, F1).
     */
    static ExecutionScenario unloadBesideTask(Start start) {
        int d = descriptorsForTwo(start);
        return scenario(List.of(unload(1)), List.of(
                List.of(unload(2)),
                hardware(d),
                List.of(qiTask(d))));
    }

    /**
     * An unload, then a synchronous waiter for the next number, on one producer thread:
     * the waiter's check and sleep race the task's wakeup (M6, M7).
     */
    static ExecutionScenario unloadThenWait(Start start) {
        int d = descriptorsForTwo(start);
        return scenario(List.of(), List.of(
                List.of(unload(1), syncInvalidate()),
                hardware(d),
                List.of(qiTask(d))));
    }

    /** A waiter and an unload on two producer threads, racing for the unit lock. */
    static ExecutionScenario waiterBesideUnload(Start start) {
        int d = descriptorsForTwo(start);
        return scenario(List.of(), List.of(
                List.of(syncInvalidate()),
                List.of(unload(1)),
                hardware(d),
                List.of(qiTask(d))));
    }

    /** The scenarios by name, so that a test can pick the one written for a mistake. */
    public enum Name {
        WAITER_ALONE,
        TASK_RACES_HARDWARE,
        DRAIN_BESIDE_UNLOAD,
        UNLOAD_BESIDE_TASK,
        UNLOAD_THEN_WAIT,
        WAITER_BESIDE_UNLOAD;

        /** @return whether the scenario can run from {@code start} */
        public boolean appliesTo(Start start) {
            return start != Start.WRAP || (this != TASK_RACES_HARDWARE && this != DRAIN_BESIDE_UNLOAD);
        }

        ExecutionScenario build(Start start) {
            return switch (this) {
                case WAITER_ALONE -> waiterAlone(start);
                case TASK_RACES_HARDWARE -> taskRacesHardware(start);
                case DRAIN_BESIDE_UNLOAD -> drainBesideUnload(start);
                case UNLOAD_BESIDE_TASK -> unloadBesideTask(start);
                case UNLOAD_THEN_WAIT -> unloadThenWait(start);
                case WAITER_BESIDE_UNLOAD -> waiterBesideUnload(start);
            };
        }
    }

    /**
     * @param start where the sequencer starts
     * @return every scenario that applies to {@code start}, in {@link Name} order
     */
    static List<ExecutionScenario> all(Start start) {
        List<ExecutionScenario> all = new ArrayList<>();
        for (Name n : Name.values()) {
            if (n.appliesTo(start)) {
                all.add(n.build(start));
            }
        }
        return all;
    }

    /**
     * @param start where the sequencer starts
     * @param names some scenarios
     * @return those scenarios, built for {@code start}
     */
    static List<ExecutionScenario> named(Start start, List<Name> names) {
        List<ExecutionScenario> some = new ArrayList<>();
        for (Name n : names) {
            some.add(n.build(start));
        }
        return some;
    }

    public static ModelCheckingOptions modelChecking(Start start) {
        return modelChecking(INVOCATIONS, all(start));
    }

    /**
     * The same options as {@link #modelChecking(Start)}, on some of its scenarios only: a
     * broken variant is run on the scenario written for it.
     *
     * @param start where the sequencer starts
     * @param names the scenarios
     * @return the options
     */
    public static ModelCheckingOptions modelChecking(Start start, List<Name> names) {
        return modelChecking(INVOCATIONS, named(start, names));
    }

    /** Interleavings explored per scenario. */
    static final int INVOCATIONS = LincheckBudget.scale(200, 2_000);

    static ModelCheckingOptions modelChecking(int invocationsPerScenario, List<ExecutionScenario> scenarios) {
        ModelCheckingOptions o = LincheckBudget.harnessIsAtomic(new ModelCheckingOptions())
                .iterations(0)
                .invocationsPerIteration(invocationsPerScenario)
                .threads(4)
                .actorsPerThread(3)
                .actorsBefore(0)
                .actorsAfter(0)
                .verifier(EpsilonVerifier.class);
        for (ExecutionScenario s : scenarios) {
            o = o.addCustomScenario(s);
        }
        return o;
    }

    /**
     * Stress runs (real threads) of every scenario for {@code start}. A lost wakeup would
     * hang until Lincheck's invocation timeout.
     *
     * @param start where the sequencer starts
     * @return the options
     */
    public static StressOptions stress(Start start) {
        return stress(LincheckBudget.scale(150, 3_000), all(start));
    }

    /**
     * @param invocationsPerScenario runs per scenario
     * @param scenarios the scenarios
     * @return stress options running exactly {@code scenarios}
     */
    static StressOptions stress(int invocationsPerScenario, List<ExecutionScenario> scenarios) {
        StressOptions o = new StressOptions()
                .iterations(0)
                .invocationsPerIteration(invocationsPerScenario)
                .threads(4)
                .actorsPerThread(3)
                .actorsBefore(0)
                .actorsAfter(0)
                .verifier(EpsilonVerifier.class);
        for (ExecutionScenario s : scenarios) {
            o = o.addCustomScenario(s);
        }
        return o;
    }

    private static ExecutionScenario scenario(List<Actor> init, List<List<Actor>> threads) {
        return new ExecutionScenario(init, threads, List.of(), null);
    }

    private static List<Actor> hardware(int descriptors) {
        List<Actor> t = new ArrayList<>();
        for (int i = 0; i < descriptors; i++) {
            t.add(actor("completeNextWaitDescriptor", true));
        }
        return t;
    }

    private static Actor unload(int item) {
        return actor("unload", false, item);
    }

    private static Actor syncInvalidate() {
        return actor("syncInvalidate", true);
    }

    private static Actor qiTask(int descriptors) {
        return actor("qiTask", true, descriptors);
    }

    private static Actor actor(String name, boolean blocking, Object... args) {
        for (Method m : QiProtocolModel.class.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                return new Actor(m, List.of(args), false, blocking, false, false);
            }
        }
        throw new IllegalArgumentException("no operation " + name + "/" + args.length);
    }
}
