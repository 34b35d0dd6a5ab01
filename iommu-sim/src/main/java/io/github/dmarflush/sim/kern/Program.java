package io.github.dmarflush.sim.kern;

/**
 * What a simulated thread does, as a state machine: the kernel asks it for the next
 * {@link Op} each time the previous one has completed. Whatever {@link #next} does to the
 * simulated machine (allocate IOVA space, link an entry, write IQT) happens at that instant
 * of simulated time, so a program does a step's effect when the step's time has passed (at
 * the end of the {@link Op.Run} that stands for it) and while it holds the locks the step
 * needs.
 */
@FunctionalInterface
public interface Program {

    /**
     * @param self the thread running the program
     * @return the next op; never null ({@link Op.Exit#EXIT} to end)
     */
    Op next(KThread self);
}
