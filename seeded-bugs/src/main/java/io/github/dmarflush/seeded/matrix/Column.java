package io.github.dmarflush.seeded.matrix;

/** The matrix's columns: the checks. */
public enum Column {
    /** {@link UnitChecks}, in a child JVM. */
    UNIT("unit"),
    /** {@link LincheckCells}, in a child JVM. */
    LINCHECK("lincheck"),
    /** {@code stress-tests/target/jcstress.jar}, quick mode. */
    JCSTRESS("jcstress"),
    /** TLC on the variant's models of {@code tla/src/tla}. */
    TLC("tlc"),
    /** {@link SimCheck}, in a child JVM. */
    SIM("sim");

    private final String label;

    Column(String label) {
        this.label = label;
    }

    /** @return the column's name in the matrix */
    public String label() {
        return label;
    }

    /**
     * @param name a label or constant name, any case
     * @return the column
     * @throws IllegalArgumentException if no column has that name
     */
    public static Column byName(String name) {
        for (Column c : values()) {
            if (c.name().equalsIgnoreCase(name.trim()) || c.label().equalsIgnoreCase(name.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown column " + name + ": not one of "
                + java.util.Arrays.stream(values()).map(Column::label).toList());
    }
}
