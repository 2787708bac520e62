package io.hivesink.format;

import org.apache.avro.Schema;

/**
 * Reads Avro binary encoding from a byte array in place: the columnar writers take strings and bytes as slices of the
 * datum ({@link #position()} before {@link #skip}), not as copies, so a value is copied at most once, into its page or
 * stripe.
 */
public final class DatumCursor {

    private byte[] bytes;
    private int position;
    private int end;

    public void reset(byte[] page, int start, int length) {
        this.bytes = page;
        this.position = start;
        this.end = start + length;
    }

    public byte[] bytes() {
        return bytes;
    }

    public int position() {
        return position;
    }

    /** Whether the whole datum was read: a shorter or longer datum than its schema says is not valid. */
    public boolean atEnd() {
        return position == end;
    }

    public int readInt() {
        long value = readLong();
        if (value != (int) value) {
            throw new IllegalArgumentException("An Avro int out of range at byte " + position);
        }
        return (int) value;
    }

    public long readLong() {
        long raw = 0;
        int shift = 0;
        while (true) {
            if (position >= end) {
                throw truncated();
            }
            byte b = bytes[position++];
            raw |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                throw new IllegalArgumentException("An Avro varint longer than 10 bytes at byte " + position);
            }
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** A length (of bytes, or of an array or map block's items), checked to fit an array and the datum. */
    public int readLength() {
        long length = readLong();
        if (length < 0 || length > end - position) {
            throw new IllegalArgumentException("An Avro length of " + length + " at byte " + position + ", with "
                    + (end - position) + " bytes left in the datum");
        }
        return (int) length;
    }

    public boolean readBoolean() {
        if (position >= end) {
            throw truncated();
        }
        return bytes[position++] != 0;
    }

    public int readFixedInt() {
        check(4);
        int value = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8 | (bytes[position + 2] & 0xFF) << 16
                | (bytes[position + 3] & 0xFF) << 24;
        position += 4;
        return value;
    }

    public long readFixedLong() {
        long low = readFixedInt() & 0xFFFFFFFFL;
        long high = readFixedInt();
        return high << 32 | low;
    }

    public float readFloat() {
        return Float.intBitsToFloat(readFixedInt());
    }

    public double readDouble() {
        return Double.longBitsToDouble(readFixedLong());
    }

    public void skip(int count) {
        check(count);
        position += count;
    }

    private void check(int count) {
        if (count > end - position) {
            throw truncated();
        }
    }

    private IllegalArgumentException truncated() {
        return new IllegalArgumentException("The Avro datum ends early, at byte " + position);
    }

    /** The item count of the next array or map block (0 at the end), past its byte size if it has one. */
    public int blockCount() {
        long count = readLong();
        if (count < 0) {
            readLong(); // the block's byte size, written with a negative count
            count = -count;
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("An Avro block of " + count + " items");
        }
        return (int) count;
    }

    /** Reads past a value of {@code schema}. */
    public void skip(Schema schema) {
        switch (schema.getType()) {
            case NULL -> {
            }
            case BOOLEAN -> skip(1);
            case INT, LONG, ENUM -> readLong();
            case FLOAT -> skip(4);
            case DOUBLE -> skip(8);
            case STRING, BYTES -> skip(readLength());
            case FIXED -> skip(schema.getFixedSize());
            case RECORD -> schema.getFields().forEach(field -> skip(field.schema()));
            case ARRAY -> {
                for (int count = blockCount(); count > 0; count = blockCount()) {
                    for (int i = 0; i < count; i++) {
                        skip(schema.getElementType());
                    }
                }
            }
            case MAP -> {
                for (int count = blockCount(); count > 0; count = blockCount()) {
                    for (int i = 0; i < count; i++) {
                        skip(readLength());
                        skip(schema.getValueType());
                    }
                }
            }
            case UNION -> skip(schema.getTypes().get(readInt()));
            default -> throw new IllegalArgumentException("Avro type " + schema.getType());
        }
    }
}
