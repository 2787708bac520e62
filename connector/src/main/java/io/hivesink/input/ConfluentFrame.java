package io.hivesink.input;

import org.apache.kafka.connect.errors.DataException;

/**
 * Where the Avro datum sits in a value framed by Confluent's serializer: magic byte 0, the writer schema's id as a
 * 4-byte big-endian int, then the Avro binary datum.
 *
 * @param schemaId the writer schema's id in the schema registry
 * @param offset   where the datum starts in the value
 * @param length   the datum's length in bytes
 */
public record ConfluentFrame(int schemaId, int offset, int length) {

    public static final byte MAGIC = 0;
    public static final int HEADER_BYTES = 5;

    /**
     * Reads the frame of a value: the magic byte and the schema id in front of the datum.
     *
     * @throws DataException saying what is wrong with the value and what to check
     */
    public static ConfluentFrame of(byte[] value) {
        if (value == null || value.length == 0) {
            throw new DataException("The value is empty" + (value == null ? " (a tombstone)" : "")
                    + ", not an Avro record framed by Confluent's serializer (magic byte 0, 4-byte schema id, datum).");
        }
        if (value[0] != MAGIC) {
            int first = value[0] & 0xFF;
            String hint = first == '{' || first == '[' ? " It looks like JSON: use a JSON converter for this topic."
                    : first == 'O' && value.length > 3 && value[1] == 'b' && value[2] == 'j' ? " It looks like an Avro "
                    + "container file, not a single framed record." : "";
            throw new DataException("The value does not start with Confluent's magic byte 0 but with 0x"
                    + String.format("%02X", first) + ", so it was not written by Confluent's Avro serializer." + hint);
        }
        if (value.length < HEADER_BYTES) {
            throw new DataException("The value has " + value.length + " bytes, fewer than the 5 of Confluent's "
                    + "header (magic byte and 4-byte schema id): it is truncated.");
        }
        int schemaId = ((value[1] & 0xFF) << 24) | ((value[2] & 0xFF) << 16) | ((value[3] & 0xFF) << 8)
                | (value[4] & 0xFF);
        return new ConfluentFrame(schemaId, HEADER_BYTES, value.length - HEADER_BYTES);
    }

    /** The value a Confluent serializer writes for {@code datum} under {@code schemaId}. */
    public static byte[] frame(int schemaId, byte[] datum) {
        byte[] value = new byte[HEADER_BYTES + datum.length];
        value[0] = MAGIC;
        value[1] = (byte) (schemaId >>> 24);
        value[2] = (byte) (schemaId >>> 16);
        value[3] = (byte) (schemaId >>> 8);
        value[4] = (byte) schemaId;
        System.arraycopy(datum, 0, value, HEADER_BYTES, datum.length);
        return value;
    }
}
