package io.github.dmarflush.flushlist;

/** A flush-list entry carrying an id and a range, with a flag a pool sets. */
final class TestEntry extends FlushEntry {
    int id;
    long start;
    long end;
    /** Set while the entry sits in a test pool; a list must never touch it then. */
    boolean pooled;

    TestEntry(int id) {
        this.id = id;
    }

    @Override
    public String toString() {
        return "TestEntry#" + id;
    }
}
