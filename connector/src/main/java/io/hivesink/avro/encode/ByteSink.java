package io.hivesink.avro.encode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte array with Avro's binary encodings of primitives, written inline: zig-zag varints, little-endian
 * IEEE floats, length-prefixed bytes and UTF-8 strings. The same bytes as Avro's {@code BinaryEncoder}, without its
 * buffering layers.
 */
public final class ByteSink {

    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int pos;

    public ByteSink(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    public int size() {
        return pos;
    }

    /** The backing array; valid up to {@link #size()} until the next write. */
    public byte[] array() {
        return buf;
    }

    public void reset() {
        pos = 0;
    }

    /** Cuts the sink back to {@code size} bytes, dropping what was written after it. */
    public void truncate(int size) {
        pos = size;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    private void ensure(int more) {
        if (pos + more > buf.length) {
            int needed = pos + more;
            int grown = Math.max(needed, buf.length + (buf.length >> 1));
            if (grown < 0) {
                throw new OutOfMemoryError("Encoded record buffer beyond 2 GiB");
            }
            buf = Arrays.copyOf(buf, grown);
        }
    }

    public void writeBoolean(boolean b) {
        ensure(1);
        buf[pos++] = (byte) (b ? 1 : 0);
    }

    public void writeInt(int n) {
        ensure(5);
        int z = (n << 1) ^ (n >> 31);
        while ((z & ~0x7F) != 0) {
            buf[pos++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        buf[pos++] = (byte) z;
    }

    public void writeLong(long n) {
        ensure(10);
        long z = (n << 1) ^ (n >> 63);
        while ((z & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        buf[pos++] = (byte) z;
    }

    public void writeFloat(float f) {
        ensure(4);
        INT_LE.set(buf, pos, Float.floatToRawIntBits(f));
        pos += 4;
    }

    public void writeDouble(double d) {
        ensure(8);
        LONG_LE.set(buf, pos, Double.doubleToRawLongBits(d));
        pos += 8;
    }

    public void writeBytes(byte[] bytes, int offset, int length) {
        writeInt(length);
        writeFixed(bytes, offset, length);
    }

    public void writeFixed(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buf, pos, length);
        pos += length;
    }

    /** UTF-8 with its length, as Avro writes a Java string (unpaired surrogates become '?', as in String.getBytes). */
    public void writeString(String s) {
        int length = s.length();
        if (length < 64) {
            // short ASCII strings, the common case, go straight in without an intermediate array
            ensure(length + 1);
            byte[] b = buf;
            int p = pos + 1;
            int i = 0;
            for (; i < length; i++) {
                char c = s.charAt(i);
                if (c >= 0x80) {
                    break;
                }
                b[p + i] = (byte) c;
            }
            if (i == length) {
                b[pos] = (byte) (length << 1);
                pos = p + length;
                return;
            }
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeBytes(utf8, 0, utf8.length);
    }
}
