package io.github.dmarflush.stress.support;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which implementation the stress tests run against: the library as shipped
 * ({@link #NONE}, the default) or one of the deliberately broken copies in
 * {@code io.github.dmarflush.stress.variants}, chosen for the whole JVM by the system
 * property {@value #PROPERTY}. Every test of this module is meant to pass on
 * {@code NONE} and to fail on the variants it is written to catch:
 *
 * <pre>
 * java -jar stress-tests/target/jcstress.jar -m quick -t RecyclingRace_ZombieHead \
 *      -jvmArgsPrepend -Ddmarflush.variant=M1
 * </pre>
 *
 * The broken copies never reach the shipped {@code flushlist} jar: they live only in this
 * module. An unknown name fails the first test that reads it, so a typo cannot pass as a
 * clean run.
 */
public enum Variant {
    /** The library as shipped. */
    NONE("the library as shipped"),
    /** {@code iommu_qi_drain_tlb_flush} frees the entry it just dequeued (the new zombie, maybe the tail). */
    M1("zombie-head drain retires the new zombie (possibly the tail) instead of the old zombie"),
    /** The producer's link store is plain: field stores may become visible after the link. */
    M2("zombie-head enqueue links the entry with a plain store instead of a release store"),
    /** The unmap path links the entry first and fills its wait sequence and range afterwards. */
    M2L("the unmap path links the entry before writing its wait sequence and IOVA range"),
    /** The drain tests the sequence number before the entry's own: releases one too many. */
    M3("zombie-head drain releases the entry after the last processed one (off by one)"),
    /** {@code processed} compares gen and seq as signed 32-bit ints. */
    M4("processed() compares gen and seq as signed ints"),
    /** The wrap increments gen without spinning for the old generation's last wait descriptor. */
    M5("wrap bumps gen without waiting for the old generation's last wait descriptor"),
    /** The wrap as FreeBSD writes it: seqHw is left at 0xFFFFFFFF when gen is incremented. */
    FREEBSD_WRAP("wrap leaves seqHw at 0xFFFFFFFF when it bumps gen, as FreeBSD does"),
    /** The waiter increments a plain {@code waiters} after advancing the queue tail. */
    M6("waiter registers (plain waiters++) after advancing the queue tail"),
    /** The QI task wakes waiters without the unit lock; waiters sleep on an msleep-style queue. */
    M7("QI task wakes waiters without the unit lock (msleep/wakeup-style sleep queue)"),
    /** Control for {@link #M7}: the same sleep queue, woken under the unit lock. */
    SLEEPQ("control for M7: msleep/wakeup-style sleep queue, wakeup under the unit lock"),
    /** The QI task does not drain a second time after clearing ICS.IWC. */
    M8("QI task does not drain again after clearing ICS.IWC");

    /** The system property that selects the variant. */
    public static final String PROPERTY = "dmarflush.variant";

    /** The variant this JVM runs: {@code -Ddmarflush.variant=NAME}, default {@link #NONE}. */
    public static final Variant SELECTED = parse(System.getProperty(PROPERTY, "NONE"));

    private final String description;

    Variant(String description) {
        this.description = description;
    }

    /** @return what is broken in this variant */
    public String description() {
        return description;
    }

    private static Variant parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + name + " is not one of "
                    + Arrays.toString(values()), e);
        }
    }
}
