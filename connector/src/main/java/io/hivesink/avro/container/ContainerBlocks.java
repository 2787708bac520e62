package io.hivesink.avro.container;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Reads an Avro object container file as its header and its raw blocks, compressed as they are, without decoding a
 * datum: what a merge copies block by block. One block is held at a time. Why not Avro's {@code DataFileStream}: its
 * raw blocks are not public, and its {@code appendAllFrom} neither counts the records it copies nor keeps the source's
 * schema bytes.
 */
public final class ContainerBlocks implements AutoCloseable {

    /** The largest block this reader takes: a block is at most what one array holds. */
    private static final long MAX_BLOCK = Integer.MAX_VALUE - 16;

    private final InputStream in;
    private final BinaryDecoder decoder;
    private final byte[] schemaJson;
    private final byte[] codecName;
    private final Map<String, byte[]> metadata;
    private final byte[] sync = new byte[ContainerHeader.SYNC_SIZE];
    private final String source;
    private byte[] block = new byte[0];
    private int blockSize;
    private long blockCount;

    /**
     * Reads the header; the stream is this reader's to close.
     *
     * @param source names the file in errors
     * @throws IOException if the stream does not hold an Avro container file's header
     */
    public ContainerBlocks(InputStream in, String source) throws IOException {
        this.in = in;
        this.source = source;
        this.decoder = DecoderFactory.get().binaryDecoder(in, null);
        byte[] magic = new byte[ContainerHeader.MAGIC.length];
        decoder.readFixed(magic);
        if (!Arrays.equals(magic, ContainerHeader.MAGIC)) {
            throw new IOException(source + " is not an Avro object container file (no Obj1 magic)");
        }
        Map<String, byte[]> entries = new LinkedHashMap<>();
        for (long n = decoder.readMapStart(); n != 0; n = decoder.mapNext()) {
            for (long i = 0; i < n; i++) {
                entries.put(decoder.readString(), decoder.readBytes(null).array());
            }
        }
        decoder.readFixed(sync);
        this.schemaJson = entries.remove(ContainerHeader.SCHEMA_KEY);
        byte[] codec = entries.remove(ContainerHeader.CODEC_KEY);
        if (schemaJson == null) {
            throw new IOException(source + " has no avro.schema in its header");
        }
        this.codecName = codec == null ? "null".getBytes(StandardCharsets.UTF_8) : codec;
        this.metadata = Collections.unmodifiableMap(entries);
    }

    /** The writer's schema, as the JSON bytes in the header. */
    public byte[] schemaJson() {
        return schemaJson.clone();
    }

    /** The codec's name (Avro's {@code null} where the header names none). */
    public String codec() {
        return new String(codecName, StandardCharsets.UTF_8);
    }

    /** The header's entries other than {@code avro.schema} and {@code avro.codec}. */
    public Map<String, byte[]> metadata() {
        return metadata;
    }

    /**
     * Reads the next block; false at the end of the file.
     *
     * @throws IOException if the file ends inside a block or a block's sync marker is not the header's
     */
    public boolean next() throws IOException {
        if (decoder.isEnd()) {
            return false;
        }
        try {
            blockCount = decoder.readLong();
            long size = decoder.readLong();
            if (blockCount < 0 || size < 0 || size > MAX_BLOCK) {
                throw new IOException(source + " has a block of " + blockCount + " records in " + size
                        + " bytes: the file is corrupt");
            }
            if (block.length < size) {
                block = new byte[(int) size];
            }
            blockSize = (int) size;
            decoder.readFixed(block, 0, blockSize);
            byte[] marker = new byte[ContainerHeader.SYNC_SIZE];
            decoder.readFixed(marker);
            if (!Arrays.equals(marker, sync)) {
                throw new IOException(source + " has a block not followed by its sync marker: the file is corrupt");
            }
            return true;
        } catch (EOFException e) {
            throw new IOException(source + " ends inside a block: the file is cut short", e);
        }
    }

    /** The records in the current block. */
    public long blockCount() {
        return blockCount;
    }

    /** The current block's bytes, compressed: {@link #blockSize()} of them, valid until the next {@link #next()}. */
    byte[] block() {
        return block;
    }

    public int blockSize() {
        return blockSize;
    }

    byte[] codecNameBytes() {
        return codecName;
    }

    byte[] schemaJsonBytes() {
        return schemaJson;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
