package io.hivesink.avro.container;

/** Avro's binary encoding of a long: zig-zag, then 7 bits per byte, low bits first. */
final class AvroLongs {

    /** The most bytes one long takes. */
    static final int MAX_SIZE = 10;

    private AvroLongs() {
    }

    static int size(long value) {
        long n = (value << 1) ^ (value >> 63);
        int size = 1;
        while ((n & ~0x7FL) != 0) {
            n >>>= 7;
            size++;
        }
        return size;
    }

    /** Writes {@code value} at {@code offset}; returns the offset after it. */
    static int put(long value, byte[] target, int offset) {
        long n = (value << 1) ^ (value >> 63);
        while ((n & ~0x7FL) != 0) {
            target[offset++] = (byte) ((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        target[offset++] = (byte) n;
        return offset;
    }
}
