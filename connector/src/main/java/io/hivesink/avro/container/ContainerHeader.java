package io.hivesink.avro.container;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.avro.Schema;

/**
 * The header of an Avro object container file: magic {@code Obj\1}, the metadata map with {@code avro.schema} (the
 * schema's compact JSON), {@code avro.codec} and any other entries, in the order Avro's {@code DataFileWriter} writes
 * them (a hash map's), then the 16-byte sync marker.
 */
final class ContainerHeader {

    static final int SYNC_SIZE = 16;

    static final byte[] MAGIC = {'O', 'b', 'j', 1};
    static final String SCHEMA_KEY = "avro.schema";
    static final String CODEC_KEY = "avro.codec";

    private ContainerHeader() {
    }

    /**
     * Writes the header.
     *
     * @param codecName the codec's name as Avro spells it, UTF-8
     * @param metadata  further entries of the metadata map (not {@code avro.*})
     * @return the number of bytes written
     */
    static long write(Schema schema, byte[] codecName, Map<String, byte[]> metadata, byte[] sync, OutputStream out)
            throws IOException {
        return write(schema.toString().getBytes(StandardCharsets.UTF_8), codecName, metadata, sync, out);
    }

    /** Writes the header with the schema's JSON as given: a copied file keeps its sources' schema byte for byte. */
    static long write(byte[] schemaJson, byte[] codecName, Map<String, byte[]> metadata, byte[] sync, OutputStream out)
            throws IOException {
        // DataFileWriter's order: its metadata is a default HashMap (put one by one: putAll would size it smaller),
        // the codec put first, then the other entries, then the schema (keys in one bucket keep that order)
        Map<String, byte[]> entries = new HashMap<>();
        entries.put(CODEC_KEY, codecName);
        metadata.forEach(entries::put);
        entries.put(SCHEMA_KEY, schemaJson);
        int size = MAGIC.length + 2 * AvroLongs.MAX_SIZE + SYNC_SIZE;
        for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
            size += 2 * AvroLongs.MAX_SIZE + 4 * entry.getKey().length() + entry.getValue().length;
        }
        byte[] header = new byte[size];
        System.arraycopy(MAGIC, 0, header, 0, MAGIC.length);
        int at = MAGIC.length;
        at = AvroLongs.put(entries.size(), header, at); // one map block of all entries
        for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
            at = putBytes(entry.getKey().getBytes(StandardCharsets.UTF_8), header, at);
            at = putBytes(entry.getValue(), header, at);
        }
        at = AvroLongs.put(0, header, at); // end of the map
        System.arraycopy(sync, 0, header, at, SYNC_SIZE);
        at += SYNC_SIZE;
        out.write(header, 0, at);
        return at;
    }

    private static int putBytes(byte[] value, byte[] target, int at) {
        at = AvroLongs.put(value.length, target, at);
        System.arraycopy(value, 0, target, at, value.length);
        return at + value.length;
    }
}
