package io.hivesink.avro.datum;

import org.apache.avro.LogicalType;

import io.hivesink.avro.encode.LogicalValues;

/** A date or timestamp logical type, with the range of its values that Hive reads (years 0001 to 9999). */
record InstantType(String field, String kind, long min, long max, long perMilli) {

    static InstantType of(String field, LogicalType logical) {
        if (logical == null) {
            return null;
        }
        long min = LogicalValues.HIVE_MIN_MILLIS;
        long max = LogicalValues.HIVE_MAX_MILLIS;
        return switch (logical.getName()) {
            case "date" -> new InstantType(field, "date", Math.floorDiv(min, 86_400_000L),
                    Math.floorDiv(max, 86_400_000L), 0);
            case "timestamp-millis", "local-timestamp-millis" -> new InstantType(field, logical.getName(), min,
                    max, 1);
            case "timestamp-micros", "local-timestamp-micros" -> new InstantType(field, logical.getName(),
                    min * 1_000, max * 1_000 + 999, 1_000);
            default -> null;
        };
    }

    void check(long value) {
        if (value < min || value > max) {
            String shown = perMilli == 0 ? java.time.LocalDate.ofEpochDay(value).toString()
                    : java.time.Instant.ofEpochMilli(Math.floorDiv(value, perMilli)).toString();
            throw LogicalValues.outOfHiveRange(kind + " " + field + " = " + shown);
        }
    }
}
