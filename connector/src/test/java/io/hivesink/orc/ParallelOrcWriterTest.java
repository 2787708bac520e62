package io.hivesink.orc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.orc.Reader;
import org.apache.orc.StripeInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.testing.EveryTypeRows;

/**
 * The ORC writer against ORC's own reader: every value of every type comes back as written, in order, with any thread
 * count and codec, and with stripes small enough that there are many; the file's statistics are the stripes'.
 */
class ParallelOrcWriterTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(3);

    @TempDir
    Path dir;

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @ParameterizedTest
    @CsvSource({"1, snappy, 3000", "2, snappy, 3000", "3, zlib, 3000", "2, zstd, 3000", "2, none, 3000",
        "2, snappy, 25000"})
    void everyValueComesBackInOrder(int threads, String codec, int count) throws IOException {
        EveryTypeRows rows = new EveryTypeRows(threads * 31L + codec.length(), count);
        long stripeBytes = count > 10_000 ? 1L << 30 : 64 * 1024;
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, threads, codec, stripeBytes,
                Map.of("org.apache.spark.version", "3.1.0"));
        Path file = write(writer, EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums);

        List<Map<String, Object>> read = OrcTestRows.read(file, EveryTypeRows.SCHEMA);
        assertEquals(rows.records.size(), read.size());
        for (int i = 0; i < read.size(); i++) {
            assertEquals(EveryTypeRows.canonical(rows.records.get(i), EveryTypeRows.SCHEMA), read.get(i),
                    "row " + i);
        }
        try (Reader reader = OrcTestRows.reader(file)) {
            List<StripeInformation> stripes = reader.getStripes();
            int expectedStripes = count > 10_000 ? 2 : 5;
            assertTrue(stripes.size() >= expectedStripes, "stripes: " + stripes.size());
            assertEquals(count, reader.getNumberOfRows());
            assertEquals(count, stripes.stream().mapToLong(StripeInformation::getNumberOfRows).sum());
            assertEquals(codec.toUpperCase(Locale.ROOT), reader.getCompressionKind().name());
            assertEquals("3.1.0", StandardCharsets.UTF_8.decode(reader.getMetadataValue("org.apache.spark.version"))
                    .toString());
            // the file's statistics are merged from the stripes': the id column's count and bounds cover every row
            assertEquals(count, reader.getStatistics()[1].getNumberOfValues());
            assertEquals(stripes.size(), reader.getStripeStatistics().size());
        }
    }

    @Test
    void aTableOfManyRowsIsCutIntoAStripePerThread() {
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, 2, "snappy", 1L << 30, Map.of());
        EncodedDatums datums = new EncodedDatums();
        for (int i = 0; i < 3 * ParallelOrcWriter.MIN_SPLIT_ROWS; i++) {
            datums.add(new byte[10], 0, 10);
        }
        List<int[]> stripes = writer.stripes(datums);
        assertEquals(2, stripes.size());
        assertEquals(0, stripes.get(0)[0]);
        assertEquals(stripes.get(0)[1], stripes.get(1)[0]);
        assertEquals(datums.count(), stripes.get(1)[1]);

        EncodedDatums few = new EncodedDatums();
        for (int i = 0; i < ParallelOrcWriter.MIN_SPLIT_ROWS + 5; i++) {
            few.add(new byte[10], 0, 10);
        }
        assertEquals(1, writer.stripes(few).size(), "too few rows to share");
    }

    /**
     * The memory budget counts the stripes in flight (one per thread plus one, or the whole file if smaller) at 7/4 of
     * their datums' bytes, as much as their dictionaries and streams were measured to hold.
     */
    @Test
    void writingCountsSevenQuartersOfAStripePerThreadPlusOne() {
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, 2, "snappy", 1 << 20, Map.of());
        byte[] datum = new byte[1 << 20];
        EncodedDatums large = new EncodedDatums();
        for (int i = 0; i < 10; i++) {
            large.add(datum, 0, datum.length);
        }
        assertEquals((3L << 20) / 4 * 7, writer.writingBytes(large));
        EncodedDatums small = new EncodedDatums();
        small.add(datum, 0, 1000);
        assertEquals(1750, writer.writingBytes(small));
    }

    @Test
    void fieldsThatAreNotColumnsAreLeftOut() throws IOException {
        EveryTypeRows rows = new EveryTypeRows(7, 500);
        Schema columns = Schema.createRecord("Row", null, "test.parquet", false, EveryTypeRows.SCHEMA.getFields()
                .stream().filter(f -> !f.name().equals("count") && !f.name().equals("inner"))
                .map(f -> new Schema.Field(f, f.schema())).toList());
        Path file = write(new ParallelOrcWriter(POOL, 2, "snappy", 1 << 20, Map.of()), EveryTypeRows.SCHEMA,
                columns, rows.datums);

        List<Map<String, Object>> read = OrcTestRows.read(file, columns);
        for (int i = 0; i < read.size(); i++) {
            @SuppressWarnings("unchecked")
            Map<String, Object> expected = new LinkedHashMap<>((Map<String, Object>) EveryTypeRows
                    .canonical(rows.records.get(i), EveryTypeRows.SCHEMA));
            expected.remove("count");
            expected.remove("inner");
            assertEquals(expected, read.get(i), "row " + i);
        }
    }

    /**
     * The file holds the table's columns, in the table's order: one the records lack gets its default (as Avro's
     * resolution gives it to an Avro table's reader) or null, nested ones too; a union of one type is its type;
     * narrower numbers are widened as Avro widens them.
     */
    @Test
    void columnsTheRecordsLackGetTheirDefaultsAndNumbersWiden() throws IOException {
        Schema datums = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "one", "type": ["int"]},
                  {"name": "id", "type": "int"},
                  {"name": "inner", "type": {"type": "record", "name": "I", "fields": [{"name": "x", "type": "int"}]}},
                  {"name": "f", "type": "float"},
                  {"name": "l", "type": "long"}
                ]}""");
        Schema table = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "id", "type": "long"},
                  {"name": "one", "type": ["int"]},
                  {"name": "inner", "type": {"type": "record", "name": "I", "fields": [
                    {"name": "x", "type": "int"},
                    {"name": "y", "type": "string", "default": "n/a"}]}},
                  {"name": "f", "type": "double"},
                  {"name": "l", "type": "float"},
                  {"name": "region", "type": "string", "default": "eu"},
                  {"name": "note", "type": ["null", "string"], "default": null},
                  {"name": "tags", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
                  {"name": "bare", "type": ["null", "double"]}
                ]}""");
        EncodedDatums encoded = new EncodedDatums();
        for (int i = 0; i < 3; i++) {
            GenericRecord record = new GenericData.Record(datums);
            record.put("one", 10 + i);
            record.put("id", -i);
            GenericRecord inner = new GenericData.Record(datums.getField("inner").schema());
            inner.put("x", 20 + i);
            record.put("inner", inner);
            record.put("f", 1.5f);
            record.put("l", (1L << 40) + 1);
            byte[] datum = encode(record);
            encoded.add(datum, 0, datum.length);
        }
        Path file = write(new ParallelOrcWriter(POOL, 2, "snappy", 1 << 20, Map.of()), datums, table, encoded);
        try (Reader reader = OrcTestRows.reader(file)) {
            assertEquals(OrcSchemas.of(table), reader.getSchema());
            assertEquals(List.of("id", "one", "inner", "f", "l", "region", "note", "tags", "bare"),
                    reader.getSchema().getFieldNames(), "the table's order, not the records'");
        }
        List<Map<String, Object>> rows = OrcTestRows.read(file, table);
        for (int i = 0; i < 3; i++) {
            Map<String, Object> expected = new LinkedHashMap<>();
            expected.put("id", (long) -i);
            expected.put("one", 10 + i);
            expected.put("inner", new LinkedHashMap<>(Map.of("x", 20 + i, "y", "n/a")));
            expected.put("f", 1.5d);
            expected.put("l", (float) ((1L << 40) + 1));
            expected.put("region", "eu");
            expected.put("note", null);
            expected.put("tags", List.of(1, 2));
            expected.put("bare", null);
            assertEquals(expected, rows.get(i), "row " + i);
        }
    }

    /**
     * A struct's fields keep the case the table's type gives them: Hive reads an ORC file through the table's types
     * and ORC matches struct fields by name, case-sensitively, so {@code userid} in the file reads NULL for
     * {@code struct<userId:string>}. Columns are in lower case, as Hive stores them.
     */
    @Test
    void structFieldsKeepTheCaseOfTheTablesTypeAndColumnsAreLowerCase() throws IOException {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "OrderId", "type": "long"},
                  {"name": "who", "type": {"type": "record", "name": "W", "fields": [
                    {"name": "userId", "type": "string"},
                    {"name": "LEVEL", "type": {"type": "record", "name": "L", "fields": [
                      {"name": "deepName", "type": "int"}]}},
                    {"name": "tags", "type": {"type": "array", "items": {"type": "record", "name": "T", "fields": [
                      {"name": "tagName", "type": "string"}]}}}]}}
                ]}""");
        GenericRecord record = new GenericData.Record(schema);
        Schema who = schema.getField("who").schema();
        GenericRecord level = new GenericData.Record(who.getField("LEVEL").schema());
        level.put("deepName", 7);
        GenericRecord tag = new GenericData.Record(who.getField("tags").schema().getElementType());
        tag.put("tagName", "t1");
        GenericRecord inner = new GenericData.Record(who);
        inner.put("userId", "u1");
        inner.put("LEVEL", level);
        inner.put("tags", List.of(tag));
        record.put("OrderId", 42L);
        record.put("who", inner);
        byte[] datum = encode(record);
        EncodedDatums encoded = new EncodedDatums();
        encoded.add(datum, 0, datum.length);
        Path file = write(new ParallelOrcWriter(POOL, 1, "snappy", 1 << 20, Map.of()), schema, schema, encoded);
        try (Reader reader = OrcTestRows.reader(file)) {
            assertEquals("struct<orderid:bigint,who:" + io.hivesink.metastore.HiveTypes.of(who) + ">",
                    reader.getSchema().toString(), "the file's types are the table's, names and case alike");
        }
        Map<?, ?> read = (Map<?, ?>) OrcTestRows.read(file, schema).get(0).get("who"); // names in lower case
        assertEquals("u1", read.get("userid"));
        assertEquals(Map.of("deepname", 7), read.get("level"));
    }

    @Test
    void aDatumThatIsNotOfItsSchemaNamesTheRecord() {
        EncodedDatums datums = new EncodedDatums();
        for (int i = 0; i < 10; i++) {
            datums.add(new byte[] {2, 4}, 0, 2);
        }
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, 2, "snappy", 1 << 20, Map.of());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> write(writer, EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, datums));
        assertTrue(e.getMessage().startsWith("Record 0 of the file is not a valid Avro datum of schema "
                + "test.parquet.Row"), e.getMessage());
    }

    @Test
    void aDecimalTooWideForItsColumnIsRefused() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "D", "fields": [
                  {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}}]}""");
        EncodedDatums datums = new EncodedDatums();
        byte[] datum = {6, 0x01, (byte) 0x86, (byte) 0xA0}; // 100000 unscaled: 1000.00 has 6 digits
        datums.add(datum, 0, datum.length);
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, 1, "snappy", 1 << 20, Map.of());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> write(writer, schema, schema, datums));
        assertTrue(e.getMessage().contains("does not fit its column's precision 4"), e.getMessage());
    }

    private static byte[] encode(GenericRecord record) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private Path write(ParallelOrcWriter writer, Schema schema, Schema columns, EncodedDatums datums)
            throws IOException {
        Path file = dir.resolve("part-" + System.nanoTime() + writer.extension());
        try (OutputStream out = Files.newOutputStream(file)) {
            long written = writer.write(schema, columns, datums, out);
            out.flush();
            assertEquals(Files.size(file), written);
        }
        return file;
    }
}
