package io.hivesink.it.readers;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The answers a correct reader gives over {@link MatrixRows}, computed from the produced values with SQL's rules:
 * NULL matches no comparison; strings compare by their UTF-8 bytes, unsigned; -0.0 equals 0.0. Engines order NaN
 * in one of two ways ({@link NanOrder}). Shares nothing with the connector's code.
 */
final class Oracle {

    /** How an engine compares NaN. */
    enum NanOrder {
        /** IEEE 754 (Trino): NaN equals nothing, is neither less nor greater than anything, differs from all. */
        IEEE,
        /** Spark and Hive: NaN equals NaN and is greater than every other value, infinity included. */
        GREATEST
    }

    private Oracle() {
    }

    /** Ids of the rows (of {@code ids}) whose {@code column op literal} is true, in ascending order. */
    static List<Long> matching(MatrixColumn column, String op, Object literal, NanOrder nan, List<Integer> ids) {
        List<Long> matches = new ArrayList<>();
        for (int id : ids) {
            Object value = MatrixRows.value(column.path(), id);
            if (value != null && holds(op, compare(value, literal, nan))) {
                matches.add((long) id);
            }
        }
        return matches;
    }

    /** Ids of the rows whose column is NULL ({@code isNull}) or is not. */
    static List<Long> nulls(MatrixColumn column, boolean isNull, List<Integer> ids) {
        List<Long> matches = new ArrayList<>();
        for (int id : ids) {
            if ((MatrixRows.value(column.path(), id) == null) == isNull) {
                matches.add((long) id);
            }
        }
        return matches;
    }

    private static boolean holds(String op, Integer order) {
        if (order == null) { // IEEE NaN: only "differs" holds
            return op.equals("<>");
        }
        return switch (op) {
            case "=" -> order == 0;
            case "<>" -> order != 0;
            case "<" -> order < 0;
            case ">" -> order > 0;
            default -> throw new IllegalArgumentException(op);
        };
    }

    /** The order of value and literal, or null where IEEE leaves NaN unordered. */
    private static Integer compare(Object value, Object literal, NanOrder nan) {
        if (value instanceof Float || value instanceof Double) {
            double v = ((Number) value).doubleValue();
            double l = ((Number) literal).doubleValue();
            if (Double.isNaN(v) || Double.isNaN(l)) {
                if (nan == NanOrder.IEEE) {
                    return null;
                }
                return Double.isNaN(v) && Double.isNaN(l) ? 0 : Double.isNaN(v) ? 1 : -1;
            }
            return v < l ? -1 : v > l ? 1 : 0; // -0.0 == 0.0
        }
        if (value instanceof Integer || value instanceof Long) {
            return Long.compare(((Number) value).longValue(), ((Number) literal).longValue());
        }
        if (value instanceof String text) {
            return Integer.signum(Arrays.compareUnsigned(text.getBytes(StandardCharsets.UTF_8),
                    ((String) literal).getBytes(StandardCharsets.UTF_8)));
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.compareTo((BigDecimal) literal);
        }
        if (value instanceof LocalDate day) {
            return day.compareTo((LocalDate) literal);
        }
        if (value instanceof Instant instant) {
            return instant.compareTo((Instant) literal);
        }
        if (value instanceof Boolean flag) {
            return Boolean.compare(flag, (Boolean) literal);
        }
        throw new IllegalArgumentException("cannot compare " + value.getClass());
    }
}
