package io.hivesink.parquet;

/**
 * Reads Avro binary encoding from a byte array in place: the shredder takes strings and bytes as slices of the datum
 * ({@link #position()} before {@link #skip}), not as copies, so a value is copied at most once, into its page.
 */
final class DatumCursor {

    private byte[] bytes;
    private int position;
    private int end;

    void reset(byte[] page, int start, int length) {
        this.bytes = page;
        this.position = start;
        this.end = start + length;
    }

    byte[] bytes() {
        return bytes;
    }

    int position() {
        return position;
    }

    /** Whether the whole datum was read: a shorter or longer datum than its schema says is not valid. */
    boolean atEnd() {
        return position == end;
    }

    int readInt() {
        long value = readLong();
        if (value != (int) value) {
            throw new IllegalArgumentException("An Avro int out of range at byte " + position);
        }
        return (int) value;
    }

    long readLong() {
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
    int readLength() {
        long length = readLong();
        if (length < 0 || length > end - position) {
            throw new IllegalArgumentException("An Avro length of " + length + " at byte " + position + ", with "
                    + (end - position) + " bytes left in the datum");
        }
        return (int) length;
    }

    boolean readBoolean() {
        if (position >= end) {
            throw truncated();
        }
        return bytes[position++] != 0;
    }

    int readFixedInt() {
        check(4);
        int value = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8 | (bytes[position + 2] & 0xFF) << 16
                | (bytes[position + 3] & 0xFF) << 24;
        position += 4;
        return value;
    }

    long readFixedLong() {
        long low = readFixedInt() & 0xFFFFFFFFL;
        long high = readFixedInt();
        return high << 32 | low;
    }

    float readFloat() {
        return Float.intBitsToFloat(readFixedInt());
    }

    double readDouble() {
        return Double.longBitsToDouble(readFixedLong());
    }

    void skip(int count) {
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
}
