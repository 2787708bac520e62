package io.hivesink.avro.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;

import com.fasterxml.jackson.databind.JsonNode;

import io.hivesink.format.DatumSource;

/** Writing files in tests, with our writer and with Avro's, and checking them with Avro's reader. */
final class ContainerFiles {

    private ContainerFiles() {
    }

    static byte[] sync(int seed) {
        byte[] sync = new byte[16];
        for (int i = 0; i < sync.length; i++) {
            sync[i] = (byte) (seed * 31 + i * 7);
        }
        return sync;
    }

    /** Writes with ours, checking the returned size and that the stream was flushed and left open. */
    static byte[] write(ParallelContainerWriter writer, Schema schema, DatumSource datums, byte[] sync) {
        TrackingStream out = new TrackingStream();
        try {
            long written = sync == null ? writer.write(schema, datums, out) : writer.write(schema, datums, out, sync);
            assertEquals(out.size(), written, "returned size");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(false, out.closed, "stream closed by the writer");
        assertEquals(out.size(), out.sizeAtLastFlush, "stream not flushed at the end");
        return out.toByteArray();
    }

    /** Writes with Avro's own DataFileWriter, appending the encoded datums. */
    static byte[] writeWithAvro(String codec, int level, int syncInterval, Schema schema, DatumSource datums,
            byte[] sync) {
        return writeWithAvro(codec, level, syncInterval, schema, datums, sync, Map.of());
    }

    /** As above, with further metadata entries. */
    static byte[] writeWithAvro(String codec, int level, int syncInterval, Schema schema, DatumSource datums,
            byte[] sync, Map<String, String> metadata) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DataFileWriter<Object> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            writer.setCodec(AvroCodecFactories.create(codec, level));
            writer.setSyncInterval(syncInterval);
            metadata.forEach(writer::setMeta);
            writer.create(schema, out, sync);
            for (int i = 0; i < datums.count(); i++) {
                writer.appendEncoded(ByteBuffer.wrap(datums.page(i), datums.start(i), datums.length(i)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Record counts per block when a block closes as soon as it holds {@code syncInterval} bytes. */
    static List<Long> avroBlockCounts(DatumSource datums, int syncInterval) {
        List<Long> counts = new ArrayList<>();
        long inBlock = 0;
        long size = 0;
        for (int i = 0; i < datums.count(); i++) {
            inBlock++;
            size += datums.length(i);
            if (size >= syncInterval) {
                counts.add(inBlock);
                inBlock = 0;
                size = 0;
            }
        }
        if (inBlock > 0) {
            counts.add(inBlock);
        }
        return counts;
    }

    /**
     * Reads {@code file} with Avro's DataFileReader and checks: codec and schema metadata; the records, in order,
     * against {@code expected}; the decompressed blocks, concatenated, against the datums byte for byte; and the
     * block boundaries against Avro's rule.
     */
    static void assertReadsBack(byte[] file, String codec, Schema schema, DatumSource datums, int syncInterval,
            List<JsonNode> expected) {
        try (DataFileReader<Object> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            assertEquals(codec, reader.getMetaString("avro.codec"), "avro.codec");
            assertEquals(schema, reader.getSchema(), "avro.schema");
            List<JsonNode> actual = new ArrayList<>();
            for (Object record : reader) {
                actual.add(TestRows.json(record));
            }
            assertEquals(expected.size(), actual.size(), "record count");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), actual.get(i), "record " + i);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }

        ByteArrayOutputStream blocks = new ByteArrayOutputStream();
        List<Long> counts = new ArrayList<>();
        try (DataFileReader<Object> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            while (reader.hasNext()) {
                ByteBuffer block = reader.nextBlock();
                counts.add(reader.getBlockCount());
                blocks.write(block.array(), block.arrayOffset() + block.position(), block.remaining());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteArrayOutputStream concatenated = new ByteArrayOutputStream();
        for (int i = 0; i < datums.count(); i++) {
            concatenated.write(datums.page(i), datums.start(i), datums.length(i));
        }
        assertArrayEquals(concatenated.toByteArray(), blocks.toByteArray(), "decompressed blocks");
        assertEquals(avroBlockCounts(datums, syncInterval), counts, "records per block");
    }

    static final class TrackingStream extends ByteArrayOutputStream {
        boolean closed;
        int sizeAtLastFlush = -1;

        @Override
        public void flush() {
            sizeAtLastFlush = size();
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
