package io.hivesink.metastore;

/**
 * What a compare-and-set alter_table came to. A write that was not made is told apart by the metastore's answer:
 * Hive's check (2.3.10+, 4.x) refuses in words of its own, which every release since has kept (Iceberg's Hive catalog
 * reads them too), while any other failure leaves the stored value unchanged just the same. Only the start-up probe
 * needs the difference: a metastore that ignores the expectation, whose write failed for another reason, must not be
 * taken for one that checks.
 *
 * @param outcome what happened
 * @param answer  the metastore's answer when the table was not written, else null
 */
public record ConditionalAlter(Outcome outcome, String answer) {

    /** The words Hive's check refuses with, whichever way it compared the value. */
    public static final String CHECK_REFUSAL = "The table has been modified";

    public enum Outcome {
        /** The table was replaced. */
        WRITTEN,
        /** Not written: the metastore's check found another value stored. */
        REFUSED_BY_CHECK,
        /** Not written, another value is stored, and the metastore's answer was not its check's. */
        NOT_WRITTEN
    }

    public static ConditionalAlter written() {
        return new ConditionalAlter(Outcome.WRITTEN, null);
    }

    /** A write not made, judged by the metastore's answer. */
    public static ConditionalAlter notWritten(String answer) {
        return new ConditionalAlter(answer != null && answer.contains(CHECK_REFUSAL) ? Outcome.REFUSED_BY_CHECK
                : Outcome.NOT_WRITTEN, answer);
    }

    public boolean isWritten() {
        return outcome == Outcome.WRITTEN;
    }
}
