package io.hivesink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** The benchmark compares like with like: every scenario writes the same records, in the same order. */
class ScenariosAgreeTest {

    @Test
    void everyScenarioWritesTheSameRecordsInOrder() throws Exception {
        for (BenchData.DataSet set : BenchData.DataSet.values()) {
            Scenario.Input input = Scenario.Input.of(set, 3_000, 7).withFramedRecords();
            ExecutorService pool = Scenario.pool(2);
            try {
                List<String> expected = null;
                for (Scenario scenario : Scenario.values()) {
                    for (String codec : List.of("snappy", "zstandard")) {
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        long size = scenario.run(input, codec, 2, pool, out);
                        assertEquals(out.size(), size, scenario + " reports the bytes it wrote");
                        if (scenario.name().startsWith("PARQUET") || scenario.name().startsWith("ORC")) {
                            // another format: the first column's values, in order, as the Structs have them
                            String first = input.connectSchema().fields().get(0).name();
                            assertEquals(input.structs().stream().map(s -> String.valueOf(s.get(first))).toList(),
                                    scenario.name().startsWith("ORC") ? readOrcFirstColumn(out.toByteArray())
                                            : readParquetFirstColumn(out.toByteArray()),
                                    scenario + " " + codec + " on " + set);
                            continue;
                        }
                        List<String> records = read(out.toByteArray(), codec);
                        assertEquals(input.structs().size(), records.size(), scenario + " " + codec);
                        if (expected == null) {
                            expected = records;
                        }
                        assertEquals(expected, records, scenario + " " + codec + " on " + set);
                    }
                }
                assertTrue(expected.get(0).contains("\"symbol\"") || set == BenchData.DataSet.WIDE300);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void dataIsSeededAndNotOneRepeatedRecord() {
        org.apache.kafka.connect.data.Schema schema =
                BenchData.connectSchema(BenchData.avroSchema(BenchData.DataSet.WIDE300));
        assertEquals(300, schema.fields().size());
        var first = BenchData.records(schema, 50, 1);
        assertEquals(first, BenchData.records(schema, 50, 1));
        assertEquals(50, first.stream().distinct().count());
        long nulls = first.stream().flatMap(s -> schema.fields().stream()
                .filter(f -> f.schema().isOptional()).map(s::get)).filter(v -> v == null).count();
        long optional = 50L * schema.fields().stream().filter(f -> f.schema().isOptional()).count();
        assertTrue(nulls > optional / 10 && nulls < optional / 3, nulls + " nulls of " + optional);
    }

    /** The first column of a Parquet file, read by Parquet's own reader from a temporary file. */
    private static List<String> readParquetFirstColumn(byte[] file) throws Exception {
        java.nio.file.Path path = java.nio.file.Files.createTempFile("scenario", ".parquet");
        try {
            java.nio.file.Files.write(path, file);
            List<String> values = new ArrayList<>();
            try (org.apache.parquet.hadoop.ParquetReader<org.apache.parquet.example.data.Group> reader =
                    org.apache.parquet.hadoop.ParquetReader.builder(
                            new org.apache.parquet.hadoop.example.GroupReadSupport(),
                            new org.apache.hadoop.fs.Path(path.toUri()))
                            .withConf(new org.apache.hadoop.conf.Configuration()).build()) {
                for (var row = reader.read(); row != null; row = reader.read()) {
                    values.add(row.getValueToString(0, 0));
                }
            }
            return values;
        } finally {
            java.nio.file.Files.deleteIfExists(path);
        }
    }

    /** The first column of an ORC file, read by ORC's own reader from a temporary file. */
    private static List<String> readOrcFirstColumn(byte[] file) throws Exception {
        java.nio.file.Path path = java.nio.file.Files.createTempFile("scenario", ".orc");
        try {
            java.nio.file.Files.write(path, file);
            List<String> values = new ArrayList<>();
            try (org.apache.orc.Reader reader = org.apache.orc.OrcFile.createReader(
                    new org.apache.hadoop.fs.Path(path.toUri()),
                    org.apache.orc.OrcFile.readerOptions(new org.apache.hadoop.conf.Configuration()));
                    org.apache.orc.RecordReader rows = reader.rows()) {
                var batch = reader.getSchema().createRowBatch();
                while (rows.nextBatch(batch)) {
                    StringBuilder value = new StringBuilder();
                    for (int row = 0; row < batch.size; row++) {
                        value.setLength(0);
                        batch.cols[0].stringifyValue(value, row);
                        String text = value.toString();
                        // stringifyValue quotes strings
                        values.add(text.startsWith("\"") ? text.substring(1, text.length() - 1) : text);
                    }
                }
            }
            return values;
        } finally {
            java.nio.file.Files.deleteIfExists(path);
        }
    }

    private static List<String> read(byte[] file, String codec) throws Exception {
        List<String> records = new ArrayList<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            assertEquals(codec, reader.getMetaString("avro.codec"));
            for (GenericRecord record : reader) {
                records.add(record.toString());
            }
        }
        return records;
    }
}
