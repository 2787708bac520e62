package io.hivesink.avro.container;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte array that receives one compressed block. The first {@link #HEAD} bytes are kept free so the block's
 * record count and size (two Avro longs) can be put right in front of the data once its size is known, and the sync
 * marker is appended after it: the whole block then goes to the file in one write, without copying. Codecs that only
 * offer a stream (xz, bzip2) write to it as an {@link OutputStream}; the others write into {@link #array()} directly.
 * Not thread safe; {@link #close()} does nothing.
 */
final class BlockBuffer extends OutputStream {

    /** Room for two Avro longs of at most 10 bytes each. */
    static final int HEAD = 20;

    private byte[] buf;
    private int pos;

    BlockBuffer(int initialCapacity) {
        buf = new byte[HEAD + Math.max(initialCapacity, 64)];
        pos = HEAD;
    }

    /** Empties the buffer: the next byte goes to offset {@link #HEAD}. */
    void reset() {
        pos = HEAD;
    }

    byte[] array() {
        return buf;
    }

    /** The offset of the next byte. */
    int position() {
        return pos;
    }

    /** Marks {@code n} bytes written directly into {@link #array()} at {@link #position()}. */
    void advance(int n) {
        pos += n;
    }

    int remaining() {
        return buf.length - pos;
    }

    int capacity() {
        return buf.length;
    }

    /** Makes room for at least {@code n} more bytes; the array may change. */
    void ensure(int n) {
        if (buf.length - pos < n) {
            long wanted = Math.max((long) pos + n, (long) buf.length + (buf.length >> 1));
            if (wanted > Integer.MAX_VALUE - 16) {
                wanted = (long) pos + n;
                if (wanted > Integer.MAX_VALUE - 16) {
                    throw new OutOfMemoryError("Avro block larger than 2 GiB");
                }
            }
            buf = Arrays.copyOf(buf, (int) wanted);
        }
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    /**
     * Frames the data written since {@link #reset()} as an Avro block: puts its record count and compressed size in
     * front of it and {@code sync} after it.
     *
     * @return the offset of the framed block in {@link #array()}; it ends at {@link #position()}
     */
    int frame(long recordCount, byte[] sync) {
        long dataSize = (long) pos - HEAD;
        int start = HEAD - AvroLongs.size(recordCount) - AvroLongs.size(dataSize);
        int at = AvroLongs.put(recordCount, buf, start);
        AvroLongs.put(dataSize, buf, at);
        write(sync, 0, sync.length);
        return start;
    }
}
