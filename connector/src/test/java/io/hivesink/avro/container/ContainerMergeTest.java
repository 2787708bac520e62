package io.hivesink.avro.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Merging container files block by block, read back by Avro's own reader. */
class ContainerMergeTest {

    private static final Schema SCHEMA = SchemaBuilder.record("Quote").fields()
            .requiredLong("id").requiredString("symbol").endRecord();
    private static final Schema EVOLVED = SchemaBuilder.record("Quote").fields()
            .requiredLong("id").requiredString("symbol").optionalDouble("price").endRecord();

    /** Avro's writer makes the sources: records {@code from} to {@code from + count - 1}, blocks of 10. */
    private static byte[] source(Schema schema, CodecFactory codec, long from, int count) throws IOException {
        return source(schema, codec, from, count, "UTC");
    }

    private static byte[] source(Schema schema, CodecFactory codec, long from, int count, String zone)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            writer.setCodec(codec);
            writer.setMeta("hive-sink.writer", "test");
            if (zone != null) {
                writer.setMeta("writer.time.zone", zone);
            }
            writer.create(schema, bytes);
            for (long id = from; id < from + count; id++) {
                GenericRecord record = new GenericData.Record(schema);
                record.put("id", id);
                record.put("symbol", "S" + id);
                writer.append(record);
                if ((id - from) % 10 == 9) {
                    writer.sync();
                }
            }
        }
        return bytes.toByteArray();
    }

    private static ContainerBlocks blocks(byte[] file, String name) throws IOException {
        return new ContainerBlocks(new ByteArrayInputStream(file), name);
    }

    private static List<Long> ids(byte[] file) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            for (GenericRecord record : reader) {
                ids.add((Long) record.get("id"));
                assertEquals("S" + record.get("id"), record.get("symbol").toString());
            }
        }
        return ids;
    }

    @Test
    void copiesEveryBlockInOrderWithTheFirstFilesHeader() throws IOException {
        byte[] a = source(SCHEMA, CodecFactory.snappyCodec(), 0, 25);
        byte[] b = source(SCHEMA, CodecFactory.snappyCodec(), 25, 0);
        byte[] c = source(SCHEMA, CodecFactory.snappyCodec(), 25, 13);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ContainerMerge merge = new ContainerMerge(out);
        for (byte[] file : List.of(a, b, c)) {
            try (ContainerBlocks source = blocks(file, "f")) {
                merge.add(source, "f");
            }
        }
        ContainerMerge.Merged merged = merge.finish();
        byte[] file = out.toByteArray();
        assertEquals(38, merged.records());
        assertEquals(3 + 2, merged.blocks()); // 10, 10, 5 then 10, 3
        assertEquals(file.length, merged.bytes());
        List<Long> expected = new ArrayList<>();
        for (long id = 0; id < 38; id++) {
            expected.add(id);
        }
        assertEquals(expected, ids(file));
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            assertEquals("snappy", reader.getMetaString("avro.codec"));
            assertEquals("test", reader.getMetaString("hive-sink.writer"));
            assertEquals(SCHEMA, reader.getSchema());
            reader.sync(file.length / 2); // a split starting mid-file finds the next block by its sync marker
            long rest = 0;
            while (reader.hasNext()) {
                reader.next();
                rest++;
            }
            assertTrue(rest > 0 && rest < 38, "records after the middle: " + rest);
        }
        // no datum decoded nor compressed again: the blocks' bytes are the sources'
        try (ContainerBlocks source = blocks(a, "a"); ContainerBlocks copy = blocks(file, "m")) {
            assertArrayEquals(source.schemaJson(), copy.schemaJson());
            while (source.next()) {
                assertTrue(copy.next());
                assertEquals(source.blockCount(), copy.blockCount());
                assertArrayEquals(Arrays.copyOf(source.block(), source.blockSize()),
                        Arrays.copyOf(copy.block(), copy.blockSize()));
            }
        }
    }

    @Test
    void refusesFilesOfAnotherSchemaOrCodec() throws IOException {
        ContainerMerge merge = new ContainerMerge(new ByteArrayOutputStream());
        try (ContainerBlocks first = blocks(source(SCHEMA, CodecFactory.snappyCodec(), 0, 3), "first")) {
            merge.add(first, "first");
        }
        try (ContainerBlocks evolved = blocks(source(EVOLVED, CodecFactory.snappyCodec(), 3, 3), "evolved");
                ContainerBlocks deflated = blocks(source(SCHEMA, CodecFactory.deflateCodec(6), 3, 3), "deflated")) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> merge.add(evolved, "evolved"))
                    .getMessage().contains("evolved has another writer's schema, codec or metadata than first"));
            assertThrows(IllegalArgumentException.class, () -> merge.add(deflated, "deflated"));
            String kind = ContainerMerge.kindOf(blocks(source(SCHEMA, CodecFactory.snappyCodec(), 0, 1), "k"));
            assertTrue(!kind.equals(ContainerMerge.kindOf(evolved)) && !kind.equals(ContainerMerge.kindOf(deflated)));
            assertEquals(kind, ContainerMerge.kindOf(blocks(source(SCHEMA, CodecFactory.snappyCodec(), 9, 4), "k")));
        }
        // Hive reads timestamps by writer.time.zone: a file written without it is another kind
        try (ContainerBlocks older = blocks(source(SCHEMA, CodecFactory.snappyCodec(), 3, 3, null), "older")) {
            assertTrue(!ContainerMerge.kindOf(older).equals(ContainerMerge.kindOf(
                    blocks(source(SCHEMA, CodecFactory.snappyCodec(), 0, 1), "k"))));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> merge.add(older, "older")).getMessage()
                    .contains("older has another writer's schema, codec or metadata than first"));
        }
    }

    @Test
    void namesAFileCutShortOrNotAvro() throws IOException {
        byte[] whole = source(SCHEMA, CodecFactory.nullCodec(), 0, 25);
        byte[] cut = Arrays.copyOf(whole, whole.length - 20);
        ContainerMerge merge = new ContainerMerge(new ByteArrayOutputStream());
        try (ContainerBlocks source = blocks(cut, "part-x-00001.avro")) {
            IOException e = assertThrows(IOException.class, () -> merge.add(source, "part-x-00001.avro"));
            assertTrue(e.getMessage().startsWith("part-x-00001.avro "), e.getMessage());
        }
        byte[] text = "PAR1 not avro at all".getBytes(StandardCharsets.UTF_8);
        assertTrue(assertThrows(IOException.class, () -> blocks(text, "x.parquet")).getMessage()
                .contains("x.parquet is not an Avro object container file"));
    }
}
