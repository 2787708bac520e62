package io.hivesink.avro.container;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Merges Avro object container files that share a writer's schema and a codec into one, by copying their blocks as
 * they are, compressed, in the order the files are given: no datum is decoded and nothing is compressed again, so a
 * merge costs about what reading and writing the bytes costs. The merged file has the first file's schema bytes,
 * codec and other metadata, and a sync marker of its own after each block, so readers split it as any container
 * file. Files whose schema, codec or other metadata differ are not merged: the caller groups files by
 * {@link #kindOf} first.
 *
 * <p>Use: {@link #add} each source in order, then {@link #finish}. The stream is flushed, not closed.
 */
public final class ContainerMerge {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final OutputStream out;
    private final byte[] sync = new byte[ContainerHeader.SYNC_SIZE];
    private final byte[] head = new byte[2 * AvroLongs.MAX_SIZE];
    private byte[] schemaJson;
    private byte[] codec;
    private Map<String, byte[]> metadata;
    private String first;
    private long records;
    private long bytes;
    private int blocks;

    public ContainerMerge(OutputStream out) {
        this.out = out;
        RANDOM.nextBytes(sync);
    }

    /**
     * What files must share to be merged: the writer's schema, the codec and the other metadata (readers act on
     * some of it: Hive converts timestamps by {@code writer.time.zone} and dates by {@code writer.proleptic}), as a
     * key to group them by.
     */
    public static String kindOf(ContainerBlocks file) {
        StringBuilder kind = new StringBuilder(file.codec()).append('|')
                .append(new String(file.schemaJsonBytes(), StandardCharsets.UTF_8));
        new TreeMap<>(file.metadata()).forEach((key, value) -> kind.append('|').append(key).append('=')
                .append(Base64.getEncoder().encodeToString(value)));
        return kind.toString();
    }

    /**
     * Copies every block of {@code source}, which is read to its end (not closed).
     *
     * @throws IllegalArgumentException if its schema or codec is not the first file's
     */
    public void add(ContainerBlocks source, String name) throws IOException {
        if (schemaJson == null) {
            schemaJson = source.schemaJsonBytes();
            codec = source.codecNameBytes();
            first = name;
            metadata = new LinkedHashMap<>(source.metadata());
            bytes += ContainerHeader.write(schemaJson, codec, metadata, sync, out);
        } else if (!Arrays.equals(schemaJson, source.schemaJsonBytes())
                || !Arrays.equals(codec, source.codecNameBytes()) || !sameMetadata(source.metadata())) {
            throw new IllegalArgumentException(name + " has another writer's schema, codec or metadata than " + first
                    + ": files are merged only with files of the same kind");
        }
        while (source.next()) {
            int at = AvroLongs.put(source.blockCount(), head, 0);
            at = AvroLongs.put(source.blockSize(), head, at);
            out.write(head, 0, at);
            out.write(source.block(), 0, source.blockSize());
            out.write(sync);
            bytes += at + source.blockSize() + sync.length;
            records += source.blockCount();
            blocks++;
        }
    }

    private boolean sameMetadata(Map<String, byte[]> other) {
        if (other.size() != metadata.size()) {
            return false;
        }
        for (Map.Entry<String, byte[]> entry : other.entrySet()) {
            if (!Arrays.equals(entry.getValue(), metadata.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** Flushes the merged file; returns what it holds. */
    public Merged finish() throws IOException {
        if (schemaJson == null) {
            throw new IllegalStateException("Nothing to merge: no file was added");
        }
        out.flush();
        return new Merged(records, blocks, bytes);
    }

    /** A merged file's records, blocks and bytes. */
    public record Merged(long records, int blocks, long bytes) {
    }
}
