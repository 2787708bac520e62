package io.hivesink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.testing.EveryTypeRows;

/**
 * The Parquet writer against Parquet's own reader: every value of every type comes back as written, in order, with
 * any thread count, codec, dictionary setting, and with row groups and pages small enough that there are many.
 */
class ParallelParquetWriterTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(3);

    @TempDir
    Path dir;

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @ParameterizedTest
    @CsvSource({"1, snappy, true", "2, snappy, true", "3, gzip, false", "2, zstd, true", "2, none, false"})
    void everyValueComesBackInOrder(int threads, String codec, boolean dictionary) throws IOException {
        EveryTypeRows rows = new EveryTypeRows(threads * 31L + codec.length(), 3_000);
        ParallelParquetWriter writer = new ParallelParquetWriter(POOL, threads, codec, dictionary, 64 * 1024,
                8 * 1024, Map.of("writer.time.zone", "UTC"));
        Path file = write(writer, EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums);

        List<Map<String, Object>> read = ParquetTestRows.read(file);
        assertEquals(rows.records.size(), read.size());
        for (int i = 0; i < read.size(); i++) {
            assertEquals(EveryTypeRows.canonical(rows.records.get(i), EveryTypeRows.SCHEMA), read.get(i),
                    "row " + i);
        }
        ParquetMetadata footer = footer(file);
        assertTrue(footer.getBlocks().size() > 5, "small row groups: " + footer.getBlocks().size());
        assertEquals("UTC", footer.getFileMetaData().getKeyValueMetaData().get("writer.time.zone"));
        String expectedCodec = codec.equals("none") ? "UNCOMPRESSED" : codec.toUpperCase(java.util.Locale.ROOT);
        footer.getBlocks().forEach(block -> block.getColumns().forEach(
                column -> assertEquals(expectedCodec, column.getCodec().name())));
    }

    @Test
    void floatAndDoubleColumnsDeclareTheSortOrderThatHive4sParquetKnows() throws IOException {
        EveryTypeRows rows = new EveryTypeRows(7, 100);
        ParallelParquetWriter writer = new ParallelParquetWriter(POOL, 2, "snappy", true, 64 * 1024, 8 * 1024,
                Map.of());
        Path file = write(writer, EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums);

        // Parquet 1.16 and later mark float and double columns IEEE_754_TOTAL_ORDER by default; Hive 4.0.1's Parquet
        // (1.13) reads that as undefined, and its row reader then finds no such column ("Group type ... does not
        // contain requested field: required double value") when a query selects it beside a partition column
        Map<String, String> orders = new java.util.TreeMap<>();
        footer(file).getFileMetaData().getSchema().getColumns().forEach(column -> orders.put(
                String.join(".", column.getPath()), column.getPrimitiveType().getPrimitiveTypeName() + " "
                        + column.getPrimitiveType().columnOrder()));
        List<String> floating = orders.values().stream().filter(o -> o.startsWith("FLOAT") || o.startsWith("DOUBLE"))
                .toList();
        assertTrue(floating.size() >= 2, "the rows have float and double columns: " + orders);
        orders.forEach((column, order) -> assertTrue(order.endsWith(order.startsWith("INT96") ? "UNDEFINED"
                : "TYPE_DEFINED_ORDER"), column + ": " + order));
    }

    /**
     * A float or double chunk holding NaN has no min and max: readers on parquet-java 1.15 and older do not know
     * {@code nan_count}, take [min, max] without the NaN for every value, and skip the row group (Hive 4.0.1 for
     * {@code d <> 0} over [0.0, 0.0, NaN]). A chunk without NaN keeps its statistics and its column index.
     */
    @Test
    void aFloatingChunkHoldingNanHasNoMinAndMaxThatOlderReadersWouldTrust() throws IOException {
        Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"f\",\"type\":\"float\"},"
                + "{\"name\":\"n\",\"type\":\"long\"}]}");
        double[][] groups = {{0.0, 0.0, Double.NaN}, {1.0, -0.0, 2.5}};
        for (double[] values : groups) {
            EncodedDatums datums = new EncodedDatums();
            for (double value : values) {
                java.nio.ByteBuffer datum = java.nio.ByteBuffer.allocate(13).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                datum.putDouble(value).putFloat((float) value).put((byte) 2); // n = 1, zigzag
                datums.add(datum.array(), 0, 13);
            }
            Path file = write(new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 1 << 20, Map.of()),
                    schema, schema, datums);
            boolean nan = Double.isNaN(values[2]);
            var chunks = footer(file).getBlocks().get(0).getColumns();
            for (int c = 0; c < 2; c++) {
                var statistics = chunks.get(c).getStatistics();
                assertEquals(!nan, statistics != null && statistics.hasNonNullValue(), chunks.get(c).getPath()
                        + " of " + java.util.Arrays.toString(values) + ": " + statistics);
                if (!nan) {
                    assertEquals(-0.0, ((Number) statistics.genericGetMin()).doubleValue());
                    assertEquals(2.5, ((Number) statistics.genericGetMax()).doubleValue());
                }
                assertEquals(!nan, columnIndex(file, chunks.get(c)) != null, "column index of "
                        + chunks.get(c).getPath());
            }
            assertTrue(chunks.get(2).getStatistics().hasNonNullValue(), "the long column keeps its statistics");
            List<Map<String, Object>> read = ParquetTestRows.read(file);
            assertEquals(3, read.size());
            assertEquals(values[2], (Double) read.get(2).get("d"));
        }
    }

    private static Object columnIndex(Path file, org.apache.parquet.hadoop.metadata.ColumnChunkMetaData chunk)
            throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
            return reader.readColumnIndex(chunk);
        }
    }

    @Test
    void fieldsThatAreNotColumnsAreLeftOut() throws IOException {
        EveryTypeRows rows = new EveryTypeRows(7, 500);
        Schema columns = Schema.createRecord("Row", null, "test.parquet", false, EveryTypeRows.SCHEMA.getFields()
                .stream().filter(f -> !f.name().equals("count") && !f.name().equals("inner"))
                .map(f -> new Schema.Field(f, f.schema())).toList());
        Path file = write(new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 1 << 20, Map.of()),
                EveryTypeRows.SCHEMA, columns, rows.datums);

        List<Map<String, Object>> read = ParquetTestRows.read(file);
        for (int i = 0; i < read.size(); i++) {
            @SuppressWarnings("unchecked")
            Map<String, Object> expected = new java.util.LinkedHashMap<>((Map<String, Object>) EveryTypeRows
                    .canonical(rows.records.get(i), EveryTypeRows.SCHEMA));
            expected.remove("count");
            expected.remove("inner");
            assertEquals(expected, read.get(i), "row " + i);
        }
        assertEquals(1, footer(file).getBlocks().size());
    }

    /** Nearly all distinct values give their dictionary up early; repeating ones keep it. */
    @Test
    @SuppressWarnings("deprecation") // version-1 files name their dictionary encoding PLAIN_DICTIONARY
    void aColumnOfDistinctValuesIsWrittenPlainAndARepeatingOneWithADictionary() throws IOException {
        Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"unique\",\"type\":\"long\"},{\"name\":\"repeated\",\"type\":\"string\"}]}");
        EncodedDatums datums = new EncodedDatums();
        org.apache.avro.generic.GenericDatumWriter<GenericRecord> avro =
                new org.apache.avro.generic.GenericDatumWriter<>(schema);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        org.apache.avro.io.BinaryEncoder encoder = null;
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        for (int i = 0; i < 3 * EarlyFallbackWriters.SAMPLE; i++) {
            GenericRecord record = new org.apache.avro.generic.GenericData.Record(schema);
            record.put("unique", random.nextLong());
            record.put("repeated", "region-" + (i % 10));
            bytes.reset();
            encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(bytes, encoder);
            avro.write(record, encoder);
            encoder.flush();
            datums.add(bytes.toByteArray(), 0, bytes.size());
        }
        Path file = write(new ParallelParquetWriter(POOL, 1, "none", true, 1 << 30, 1 << 20, Map.of()), schema,
                schema, datums);
        var columns = footer(file).getBlocks().get(0).getColumns();
        assertTrue(!columns.get(0).getEncodings().contains(org.apache.parquet.column.Encoding.PLAIN_DICTIONARY)
                && columns.get(0).getDictionaryPageOffset() == 0, "unique: " + columns.get(0).getEncodings());
        assertTrue(columns.get(1).getEncodings().contains(org.apache.parquet.column.Encoding.PLAIN_DICTIONARY),
                "repeated: " + columns.get(1).getEncodings());
        assertEquals(3 * EarlyFallbackWriters.SAMPLE, ParquetTestRows.read(file).size());
    }

    /** The early check judges a column's first page only: a dictionary that pays there is kept on later pages. */
    @Test
    @SuppressWarnings("deprecation") // version-1 files name their dictionary encoding PLAIN_DICTIONARY
    void aRepeatingColumnKeepsItsDictionaryOnEveryPage() throws IOException {
        Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"customer\",\"type\":\"long\"}]}");
        EncodedDatums datums = new EncodedDatums();
        java.util.SplittableRandom random = new java.util.SplittableRandom(2);
        byte[] datum = new byte[10];
        for (int i = 0; i < 200_000; i++) {
            int length = zigzag(1_000_000L + random.nextInt(5_000), datum);
            datums.add(datum.clone(), 0, length);
        }
        Path file = write(new ParallelParquetWriter(POOL, 1, "none", true, 1 << 30, 64 * 1024, Map.of()), schema,
                schema, datums);
        var footer = footer(file);
        var column = footer.getBlocks().get(0).getColumns().get(0);
        assertTrue(column.getEncodings().contains(org.apache.parquet.column.Encoding.PLAIN_DICTIONARY)
                && !column.getEncodings().contains(org.apache.parquet.column.Encoding.PLAIN),
                "5,000 distinct values in 200,000 stay dictionary-encoded: " + column.getEncodings());
        assertEquals(200_000, ParquetTestRows.read(file).size());
    }

    /** Avro's encoding of a long: zigzag, then base-128 varint; returns its length. */
    private static int zigzag(long value, byte[] out) {
        long n = (value << 1) ^ (value >> 63);
        int i = 0;
        while ((n & ~0x7FL) != 0) {
            out[i++] = (byte) ((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        out[i++] = (byte) n;
        return i;
    }

    /**
     * The file holds the table's columns: one the records lack gets its default (as Avro's resolution gives it to an
     * Avro table's reader) or null, nested ones too; a union of one type is its type.
     */
    @Test
    void columnsTheRecordsLackGetTheirDefaults() throws IOException {
        Schema datums = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "id", "type": "long"},
                  {"name": "one", "type": ["int"]},
                  {"name": "inner", "type": {"type": "record", "name": "I", "fields": [{"name": "x", "type": "int"}]}}
                ]}""");
        Schema table = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "id", "type": "long"},
                  {"name": "one", "type": ["int"]},
                  {"name": "inner", "type": {"type": "record", "name": "I", "fields": [
                    {"name": "x", "type": "int"},
                    {"name": "y", "type": "string", "default": "n/a"}]}},
                  {"name": "region", "type": "string", "default": "eu"},
                  {"name": "note", "type": ["null", "string"], "default": null},
                  {"name": "tags", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
                  {"name": "bare", "type": ["null", "double"]}
                ]}""");
        EncodedDatums encoded = new EncodedDatums();
        for (int i = 0; i < 3; i++) {
            byte[] datum = new byte[30];
            int at = zigzag(i, datum);
            datum[at++] = 0; // the union's only branch
            at += zigzag(10 + i, java.util.Arrays.copyOfRange(datum, at, datum.length), datum, at);
            at += zigzag(20 + i, java.util.Arrays.copyOfRange(datum, at, datum.length), datum, at);
            encoded.add(datum, 0, at);
        }
        Path file = write(new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 1 << 20, Map.of()), datums,
                table, encoded);
        List<Map<String, Object>> rows = ParquetTestRows.read(file);
        for (int i = 0; i < 3; i++) {
            Map<String, Object> expected = new java.util.LinkedHashMap<>();
            expected.put("id", (long) i);
            expected.put("one", 10 + i);
            expected.put("inner", new java.util.LinkedHashMap<>(Map.of("x", 20 + i, "y", "n/a")));
            expected.put("region", "eu");
            expected.put("note", null);
            expected.put("tags", List.of(1, 2));
            expected.put("bare", null);
            assertEquals(expected, rows.get(i), "row " + i);
        }
    }

    /** Numbers narrower in the records than in the table are widened, as Avro's resolution widens them. */
    @Test
    void narrowerNumbersAreWidenedToTheirColumns() throws IOException {
        Schema datums = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"long\"},"
                + "{\"name\":\"c\",\"type\":\"float\"},{\"name\":\"d\",\"type\":\"int\"}]}");
        Schema table = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"double\"},"
                + "{\"name\":\"c\",\"type\":\"double\"},{\"name\":\"d\",\"type\":\"float\"}]}");
        EncodedDatums encoded = new EncodedDatums();
        byte[] scratch = new byte[10];
        byte[] datum = new byte[40];
        int at = zigzag(-7, scratch, datum, 0);
        at += zigzag(1L << 40, scratch, datum, at);
        int bits = Float.floatToIntBits(1.5f);
        for (int i = 0; i < 4; i++) {
            datum[at++] = (byte) (bits >>> (8 * i));
        }
        at += zigzag(3, scratch, datum, at);
        encoded.add(datum, 0, at);
        Path file = write(new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 1 << 20, Map.of()), datums,
                table, encoded);
        assertEquals(List.of(Map.of("a", -7L, "b", (double) (1L << 40), "c", 1.5d, "d", 3.0f)),
                ParquetTestRows.read(file));
    }

    /** Encodes {@code value} as an Avro int or long into {@code out} at {@code at}; returns its length. */
    private static int zigzag(long value, byte[] scratch, byte[] out, int at) {
        int length = zigzag(value, scratch);
        System.arraycopy(scratch, 0, out, at, length);
        return length;
    }

    @Test
    void aDatumThatIsNotOfItsSchemaNamesTheRecord() {
        EveryTypeRows rows = new EveryTypeRows(3, 10);
        EncodedDatums datums = new EncodedDatums();
        for (GenericRecord ignored : rows.records) {
            datums.add(new byte[] {2, 4}, 0, 2);
        }
        ParallelParquetWriter writer = new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 1 << 20,
                Map.of());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> write(writer, EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, datums));
        assertTrue(e.getMessage().startsWith("Record 0 of the file is not a valid Avro datum of schema "
                + "test.parquet.Row"), e.getMessage());
    }

    private Path write(ParallelParquetWriter writer, Schema schema, Schema columns, EncodedDatums datums)
            throws IOException {
        Path file = dir.resolve("part-" + System.nanoTime() + writer.extension());
        try (OutputStream out = Files.newOutputStream(file)) {
            long written = writer.write(schema, columns, datums, out);
            out.flush();
            assertEquals(Files.size(file), written);
        }
        return file;
    }


    private static ParquetMetadata footer(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
            return reader.getFooter();
        }
    }
}
