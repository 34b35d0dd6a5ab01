package io.github.dmarflush.flushlist.lincheck;

import java.lang.reflect.Method;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * The Lincheck options of the flush-list tests: two written-out scenarios, run first,
 * then generated ones. The written-out ones put the consumer and one producer on the
 * element the consumer is about to retire, the race a wrong retire needs; generated
 * scenarios find it too, but only after many more invocations.
 *
 * <ul>
 *   <li>{@code reuseWhileDraining}: entry 1 is processed; the consumer drains it while a
 *       producer enqueues entry 2 from the pool.</li>
 *   <li>{@code enqueueBesideDrain}: entries 1 and 2 are queued, 1 is processed; the
 *       consumer drains while a producer enqueues entry 3; afterwards the hardware
 *       completes the rest and a last drain must return everything left, in order.</li>
 * </ul>
 * Generated scenarios: 3 threads of 3 operations, 1 before and 1 after (one consumer
 * thread and one hardware thread, by their non-parallel groups).
 */
public final class FlushListScenarios {

    private FlushListScenarios() {
    }

    static ExecutionScenario reuseWhileDraining() {
        return new ExecutionScenario(
                List.of(enqueue(1), complete()),
                List.of(List.of(drain()), List.of(enqueue(2))),
                List.of(complete(), drain()),
                null);
    }

    static ExecutionScenario enqueueBesideDrain() {
        return new ExecutionScenario(
                List.of(enqueue(1), enqueue(2), complete()),
                List.of(List.of(drain()), List.of(enqueue(3))),
                List.of(complete(), complete(), drain()),
                null);
    }

    /** Model checking against {@link FifoSpec}: the two scenarios, then generated ones. */
    public static ModelCheckingOptions modelChecking() {
        return LincheckBudget.harnessIsAtomic(new ModelCheckingOptions())
                .iterations(LincheckBudget.scale(6, 30))
                .invocationsPerIteration(LincheckBudget.scale(200, 1_000))
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .sequentialSpecification(FifoSpec.class)
                .addCustomScenario(reuseWhileDraining())
                .addCustomScenario(enqueueBesideDrain());
    }

    /** Stress runs against {@link FifoSpec}: real threads, the same shapes. */
    public static StressOptions stress() {
        return new StressOptions()
                .iterations(LincheckBudget.scale(5, 30))
                .invocationsPerIteration(LincheckBudget.scale(500, 5_000))
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .sequentialSpecification(FifoSpec.class)
                .addCustomScenario(reuseWhileDraining())
                .addCustomScenario(enqueueBesideDrain());
    }

    private static Actor enqueue(int item) {
        return actor("enqueue", item);
    }

    private static Actor complete() {
        return actor("completeNextWaitDescriptor");
    }

    private static Actor drain() {
        return actor("drain");
    }

    private static Actor actor(String name, Object... args) {
        for (Method m : FlushListModel.class.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                return new Actor(m, List.of(args));
            }
        }
        throw new IllegalArgumentException("no operation " + name + "/" + args.length);
    }
}
