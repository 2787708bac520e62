package io.hivesink.avro.container;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.avro.Schema;

/**
 * The header of an Avro object container file: magic {@code Obj\1}, the metadata map with {@code avro.schema} (the
 * schema's compact JSON) and {@code avro.codec}, in the order Avro's {@code DataFileWriter} writes them, then the
 * 16-byte sync marker.
 */
final class ContainerHeader {

    static final int SYNC_SIZE = 16;

    private static final byte[] MAGIC = {'O', 'b', 'j', 1};
    private static final byte[] SCHEMA_KEY = "avro.schema".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CODEC_KEY = "avro.codec".getBytes(StandardCharsets.UTF_8);

    private ContainerHeader() {
    }

    /**
     * Writes the header.
     *
     * @param codecName the codec's name as Avro spells it, UTF-8
     * @return the number of bytes written
     */
    static long write(Schema schema, byte[] codecName, byte[] sync, OutputStream out) throws IOException {
        byte[] schemaJson = schema.toString().getBytes(StandardCharsets.UTF_8);
        byte[] header = new byte[MAGIC.length + 6 * AvroLongs.MAX_SIZE + SCHEMA_KEY.length + schemaJson.length
                + CODEC_KEY.length + codecName.length + SYNC_SIZE];
        System.arraycopy(MAGIC, 0, header, 0, MAGIC.length);
        int at = MAGIC.length;
        at = AvroLongs.put(2, header, at); // one map block of two entries
        at = putBytes(SCHEMA_KEY, header, at);
        at = putBytes(schemaJson, header, at);
        at = putBytes(CODEC_KEY, header, at);
        at = putBytes(codecName, header, at);
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
