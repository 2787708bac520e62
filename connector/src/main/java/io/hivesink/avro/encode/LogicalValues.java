package io.hivesink.avro.encode;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.concurrent.TimeUnit;

import org.apache.avro.LogicalTypes;
import org.apache.kafka.connect.errors.DataException;

/** Connect's logical-type values in their Avro representation. */
public final class LogicalValues {

    private static final long MILLIS_PER_DAY = TimeUnit.DAYS.toMillis(1);
    /** 0001-01-01T00:00:00Z: Hive reads timestamps and dates from then ... */
    public static final long HIVE_MIN_MILLIS = -62_135_596_800_000L;
    /** ... to 9999-12-31T23:59:59.999Z; a value outside makes every query that reads the column fail. */
    public static final long HIVE_MAX_MILLIS = 253_402_300_799_999L;

    private LogicalValues() {
    }

    /** Connect Date (midnight UTC) to Avro date: days since the epoch, within the dates Hive reads. */
    static int epochDays(java.util.Date date, String path) {
        return (int) Math.floorDiv(hiveReadable(date, path, "Date"), MILLIS_PER_DAY);
    }

    /** Connect Timestamp to Avro timestamp-millis, within the timestamps Hive reads. */
    static long epochMillis(java.util.Date timestamp, String path) {
        return hiveReadable(timestamp, path, "Timestamp");
    }

    private static long hiveReadable(java.util.Date value, String path, String kind) {
        long millis = value.getTime();
        if (millis < HIVE_MIN_MILLIS || millis > HIVE_MAX_MILLIS) {
            throw outOfHiveRange(kind + " " + path + " = " + java.time.Instant.ofEpochMilli(millis));
        }
        return millis;
    }

    /** The error for a timestamp or date that Hive cannot read, named by {@code what}. */
    public static DataException outOfHiveRange(String what) {
        return new DataException(what + " is outside the years 0001 to 9999 that Hive reads: every query that "
                + "reads the column would fail. Correct the value upstream (a producer's placeholder for 'never', "
                + "such as the year 10000, can become null or 9999-12-31).");
    }

    /** Connect Time (a Date on 1970-01-01) to Avro time-millis: milliseconds of the day. */
    static int millisOfDay(java.util.Date time) {
        return (int) Math.floorMod(time.getTime(), MILLIS_PER_DAY);
    }

    /**
     * The unscaled two's-complement big-endian bytes of a decimal, checked against the Avro type's scale and
     * precision.
     */
    static byte[] decimalBytes(BigDecimal value, LogicalTypes.Decimal decimal, String path) {
        BigDecimal scaled;
        try {
            scaled = value.setScale(decimal.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new DataException("Decimal " + path + " = " + value + " does not fit scale " + decimal.getScale()
                    + " without rounding.");
        }
        if (scaled.precision() > decimal.getPrecision()) {
            throw new DataException("Decimal " + path + " = " + value + " has more digits than its type decimal("
                    + decimal.getPrecision() + "," + decimal.getScale() + ") allows, so Hive would read it as NULL. "
                    + "Round or cap it upstream, or declare a larger precision (the connect.decimal.precision "
                    + "parameter of its schema) for a new table: the connector does not change a decimal column.");
        }
        return scaled.unscaledValue().toByteArray();
    }
}
