package io.github.dmarflush.sim.driver;

/** Which TLB flush list the unit's driver uses. */
public enum FlushStrategy {
    /**
     * The pre-2022 FreeBSD design: {@code LockedFlushList}, a FIFO under the unit lock whose
     * QI task takes {@code dmarhw} for each entry it frees.
     */
    LOCKED("locked", "pre-2022 TAILQ; dmar_qi_task takes dmarhw per freed entry"),
    /**
     * The lock-free zombie-head list ({@code ZombieHeadFlushList}): the QI task drains
     * without the unit lock.
     */
    FLUSHLIST("flushlist", "zombie-head list; dmar_qi_task drains without dmarhw");

    private final String cliName;
    private final String description;

    FlushStrategy(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /** @return the name used on the command line and in reports */
    public String cliName() {
        return cliName;
    }

    /** @return one line saying what it is */
    public String description() {
        return description;
    }
}
