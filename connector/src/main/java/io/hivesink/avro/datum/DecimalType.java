package io.hivesink.avro.datum;

import java.math.BigInteger;

import org.apache.kafka.connect.errors.DataException;

/**
 * A decimal's Avro type. Its unscaled value, two's-complement big-endian, fits {@code precision} digits for sure
 * when it has at most {@code safeBytes} bytes; a longer one is compared with 10^precision.
 */
record DecimalType(String field, int precision, int scale, int fixedSize, int safeBytes,
        BigInteger limit) {

    DecimalType(String field, int precision, int scale, int fixedSize) {
        // n bytes hold magnitudes below 2^(8n-1): safe while 8n-1 <= precision * log2(10)
        this(field, precision, scale, fixedSize,
                (int) Math.floor((precision * (Math.log(10) / Math.log(2)) + 1) / 8),
                BigInteger.TEN.pow(precision));
    }

    /** Checks the {@code length} bytes of an unscaled value at {@code p}. */
    void check(byte[] b, int p, int length) {
        if (length <= safeBytes) {
            return;
        }
        BigInteger unscaled = new BigInteger(b, p, length);
        if (unscaled.abs().compareTo(limit) >= 0) {
            throw new DataException("Decimal " + field + " = "
                    + new java.math.BigDecimal(unscaled, scale).toPlainString() + " has more digits than its "
                    + "type decimal(" + precision + "," + scale + ") allows, so Hive would read it as NULL. "
                    + "Round or cap it upstream, or give it a larger precision for a new table: the connector does "
                    + "not change a decimal column.");
        }
    }
}
