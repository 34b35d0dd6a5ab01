package io.github.dmarflush.flushlist.variants;

import java.util.Arrays;
import java.util.Locale;

/**
 * The deliberately broken variants of the flush list and the wait-sequence protocol, one
 * classic mistake each, selectable by name ({@link #byName}: {@code "M5"} or the full
 * constant name). Test sources only: none of this is in the shipped jar.
 *
 * <p>{@link #NONE} is the correct algorithm. Each other constant says which component it
 * breaks ({@link Component}) and whether a checker that assumes sequential consistency
 * (Lincheck's model checking) can see it at all.
 */
public enum Variant {

    /** The correct algorithm. */
    NONE(Component.NONE, true, "correct"),

    /**
     * M1: the consumer retires the new zombie (the entry it just dequeued, possibly the
     * tail) instead of the old zombie. With a recycling pool a producer gets an element that
     * is still the head, or still the tail it will link into.
     */
    M1_RETIRE_NEW_ZOMBIE(Component.LIST, true,
            "drain retires the new zombie (maybe the tail) instead of the old zombie"),

    /**
     * M2, program-order form: the producer links the entry before it writes the entry's
     * wait sequence and item. Visible under sequential consistency: the consumer reads the
     * stale sequence of a fresh or recycled element.
     */
    M2_LINK_BEFORE_FILL(Component.CALLER, true,
            "producer links the entry before writing its wait sequence and item"),

    /**
     * M2, memory-order form: the producer publishes the entry with a plain store instead of
     * a release store. Invisible under sequential consistency, so Lincheck cannot catch it;
     * jcstress's job.
     */
    M2_PLAIN_STORE(Component.LIST, false,
            "enqueue links with a plain store instead of a release store"),

    /** M3: the drain's processed test is off by one and releases the first unprocessed entry. */
    M3_OFF_BY_ONE(Component.LIST, true,
            "drain asks processed(seq - 1): releases the first entry that is not processed"),

    /** M4: sequence numbers compared signed, wrong once they cross 0x7FFFFFFF. */
    M4_SIGNED_COMPARE(Component.SEQUENCER, true,
            "processed() compares seq numbers signed"),

    /**
     * M5: the 0xFFFFFFFF wrap bumps the generation without first waiting until the old
     * generation's last wait descriptor is processed.
     */
    M5_WRAP_WITHOUT_WAIT(Component.SEQUENCER, true,
            "wrap bumps gen without waiting for seq 0xFFFFFFFF"),

    /**
     * M6: the synchronous waiter registers (inv_seq_waiters++) after advancing the queue
     * tail instead of before. The waiter holds the unit lock from the tail advance to its
     * processed check, so under sequential consistency the QI task either sees the waiter
     * or the waiter sees its sequence processed: the wakeup is lost only if the waiter's
     * store to {@code waiters} is delayed past its load of the status word (store buffer),
     * which the MMIO write of IQT prevents in FreeBSD when it comes after the increment.
     */
    M6_REGISTER_AFTER_TAIL(Component.CALLER, false,
            "waiter registers after advancing the queue tail"),

    /**
     * M7: the QI task wakes the waiters without taking the unit lock, with a sleep/wakeup
     * primitive that, like FreeBSD's msleep/wakeup, forgets a wakeup nobody sleeps for.
     */
    M7_WAKE_WITHOUT_LOCK(Component.SEQUENCER, true,
            "task calls wakeup() without the unit lock (msleep/wakeup primitive)"),

    /** M8: the QI task does not drain a second time after clearing ICS.IWC. */
    M8_NO_SECOND_DRAIN(Component.TASK, true,
            "task does not drain again after clearing ICS.IWC"),

    /** M9: the producer advances the queue tail before the entry is on the flush list. */
    M9_TAIL_BEFORE_LINK(Component.CALLER, true,
            "producer advances IQT before linking the entry"),

    /**
     * F1: FreeBSD's wraparound as written: the status word is left at 0xFFFFFFFF when the
     * generation moves on, so (gen+1, 1) counts as processed at once. See the README,
     * "A finding".
     */
    F1_WRAP_KEEPS_SEQHW(Component.SEQUENCER, true,
            "wrap leaves seqHw at 0xFFFFFFFF when gen moves on (FreeBSD as written)");

    /** Which part of the system a variant breaks. */
    public enum Component {
        /** Nothing is broken. */
        NONE,
        /** The flush list ({@link BrokenZombieHeadFlushList}). */
        LIST,
        /** The (gen, seq) protocol ({@link BrokenQiSequencer}). */
        SEQUENCER,
        /** The QI task ({@link BrokenQiTask}). */
        TASK,
        /** The code that calls the library: the unmap path or the synchronous waiter. */
        CALLER
    }

    private final Component component;
    private final boolean visibleUnderSequentialConsistency;
    private final String description;

    Variant(Component component, boolean visibleUnderSc, String description) {
        this.component = component;
        this.visibleUnderSequentialConsistency = visibleUnderSc;
        this.description = description;
    }

    /** @return the component this variant breaks */
    public Component component() {
        return component;
    }

    /**
     * @return whether the mistake can change an outcome when every access is sequentially
     *     consistent (so a model checker that assumes it can see it)
     */
    public boolean visibleUnderSequentialConsistency() {
        return visibleUnderSequentialConsistency;
    }

    /** @return one line saying what is broken */
    public String description() {
        return description;
    }

    /** @return the short name, {@code M1} .. {@code M9}, {@code F1}, or {@code NONE} */
    public String shortName() {
        int us = name().indexOf('_');
        return this == NONE ? "NONE" : name().substring(0, us);
    }

    /**
     * Looks a variant up by its short name ({@code "M5"}) or full name, ignoring case.
     *
     * @param name the name
     * @return the variant
     * @throws IllegalArgumentException if no variant, or more than one, has that name
     */
    public static Variant byName(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT);
        Variant[] hits = Arrays.stream(values())
                .filter(v -> v.name().equals(n) || v.shortName().equals(n))
                .toArray(Variant[]::new);
        if (hits.length != 1) {
            throw new IllegalArgumentException("no single variant named '" + name + "'; known: "
                    + Arrays.toString(values()));
        }
        return hits[0];
    }
}
