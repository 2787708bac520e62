package io.hivesink.it.readers;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

/**
 * A column (or nested field, {@code rec.Deep.deepName}) of the matrix tables the battery puts predicates on, with
 * the literals it compares it to: at the edges of the values' range, inside it and outside it. Three or four per
 * column: each literal costs every reader four scans of every table.
 */
record MatrixColumn(String path, Kind kind, List<Object> literals) {

    /** SQL types the battery tells apart; {@code COMPLEX} columns get only {@code IS NULL} and {@code IS NOT NULL}. */
    enum Kind {
        INT, BIGINT, FLOAT, DOUBLE, BOOLEAN, STRING, DECIMAL_9_2, DECIMAL_38_6, DATE, TIMESTAMP, COMPLEX
    }

    private static final BigDecimal NINES = new BigDecimal("9".repeat(32) + "." + "9".repeat(6));

    /** Every column the battery queries, in the order the full scan renders them. */
    static final List<MatrixColumn> ALL = List.of(
            of("id", Kind.BIGINT, 0L, 35L, 40L),
            of("bucket", Kind.STRING, "b0", "b1", "b3"),
            of("i32", Kind.INT, Integer.MIN_VALUE, 0, Integer.MAX_VALUE),
            of("i64", Kind.BIGINT, Long.MIN_VALUE, Long.MAX_VALUE, 5L),
            of("f32", Kind.FLOAT, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY),
            of("f64", Kind.DOUBLE, 0.0, 1.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY),
            of("flag", Kind.BOOLEAN, true, false),
            of("s", Kind.STRING, "", "\u00e9", "m"),
            of("b", Kind.COMPLEX),
            of("dec9", Kind.DECIMAL_9_2, new BigDecimal("-9999999.99"), new BigDecimal("0.00"),
                    new BigDecimal("9999999.99")),
            of("dec38", Kind.DECIMAL_38_6, NINES.negate(), new BigDecimal("0.000000"), NINES),
            of("day", Kind.DATE, LocalDate.of(1000, 1, 1), LocalDate.of(1582, 10, 10), LocalDate.of(9999, 12, 31)),
            of("ts", Kind.TIMESTAMP, Instant.parse("1500-06-15T10:00:00Z"), Instant.parse("1970-01-01T00:00:00Z"),
                    Instant.parse("9999-12-31T23:59:59.999Z")),
            of("topCamel", Kind.STRING, "x", "Y", "m"),
            of("arr", Kind.COMPLEX),
            of("m", Kind.COMPLEX),
            of("rec", Kind.COMPLEX),
            of("rec.userId", Kind.STRING, "u1", "", "\u00e9"),
            of("rec.UPPER", Kind.INT, Integer.MIN_VALUE, 7, 0),
            of("rec.Deep", Kind.COMPLEX),
            of("rec.Deep.deepName", Kind.BIGINT, -3L, 0L, Long.MAX_VALUE),
            of("rec.Deep.ALLCAPS", Kind.STRING, "Q", "caps", "a"),
            of("items", Kind.COMPLEX),
            of("added", Kind.STRING, "new", "\u00e9", "a"));

    private static MatrixColumn of(String path, Kind kind, Object... literals) {
        return new MatrixColumn(path, kind, List.of(literals));
    }

    /** The comparisons the battery runs for this column's literals: none for a complex or boolean one but = and <>. */
    List<String> operators() {
        return switch (kind) {
            case COMPLEX -> List.of();
            case BOOLEAN -> List.of("=", "<>");
            default -> List.of("=", "<>", "<", ">");
        };
    }

    /** A literal as text a SQL cast reads: ISO dates, timestamps as {@code yyyy-MM-dd HH:mm:ss.SSS} in UTC. */
    static String text(Object literal) {
        if (literal instanceof Instant instant) {
            return instant.toString().replace('T', ' ').replace("Z", ""); // ISO_INSTANT always has the seconds
        }
        if (literal instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (literal instanceof LocalDate day) {
            return day.toString();
        }
        return String.valueOf(literal);
    }
}
