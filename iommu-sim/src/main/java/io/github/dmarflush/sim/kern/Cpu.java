package io.github.dmarflush.sim.kern;

/** One simulated CPU: the thread on it, and what it has done. Package-private state of {@link Kernel}. */
final class Cpu {
    final int index;
    KThread thread;

    Cpu(int index) {
        this.index = index;
    }
}
