package io.hivesink.format;

/**
 * Writes a negative zero as zero in Parquet and ORC files, so that every reader finds it with {@code = 0}.
 *
 * <p>Why: SQL compares -0.0 and 0.0 as equal, and readers skip data on statistics and filters that do not. Hive
 * 4.0.1, with its predicate pushdown on, loses the -0.0 rows of a Parquet file for {@code d = 0} (parquet-java's
 * record filter orders -0.0 below 0.0), and every row of an ORC stripe whose first value is
 * -0.0 and whose others are 0.0 (ORC keeps min and max -0.0, and the reader then rules out 0.0). The sign of a zero
 * says nothing a warehouse query can use; Avro tables keep it, as Avro files hold each value as produced.
 */
public final class SignedZeros {

    private SignedZeros() {
    }

    /** {@code value}, with -0.0 as 0.0: IEEE 754 adds -0.0 and 0.0 to 0.0 and leaves every other value as it is. */
    public static double unsigned(double value) {
        return value + 0.0;
    }

    /** {@code value}, with -0.0f as 0.0f. */
    public static float unsigned(float value) {
        return value + 0.0f;
    }
}
