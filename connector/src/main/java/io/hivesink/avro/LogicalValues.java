package io.hivesink.avro;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.concurrent.TimeUnit;

import org.apache.avro.LogicalTypes;
import org.apache.kafka.connect.errors.DataException;

/** Connect's logical-type values in their Avro representation. */
final class LogicalValues {

    private static final long MILLIS_PER_DAY = TimeUnit.DAYS.toMillis(1);

    private LogicalValues() {
    }

    /** Connect Date (midnight UTC) to Avro date: days since the epoch. */
    static int epochDays(java.util.Date date) {
        return (int) Math.floorDiv(date.getTime(), MILLIS_PER_DAY);
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
            throw new DataException("Decimal " + path + " = " + value + " has more digits than precision "
                    + decimal.getPrecision() + ".");
        }
        return scaled.unscaledValue().toByteArray();
    }
}
