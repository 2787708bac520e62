package io.hivesink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.hivesink.testing.EveryTypeRows;

/**
 * Merging the connector's Parquet files: every value of every type (nested, repeated, null, NaN) comes back from
 * Parquet's own reader in the files' order, in row groups that each take several of the small files' row groups.
 */
class ParquetMergeTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(2);
    private static final Map<String, String> METADATA = Map.of("writer.time.zone", "UTC");

    @TempDir
    Path dir;

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @ParameterizedTest
    @CsvSource({"snappy, true", "zstd, false", "none, true"})
    void everyValueOfEveryFileComesBackInOrderInFewerRowGroups(String codec, boolean dictionary) throws IOException {
        List<Path> files = new ArrayList<>();
        List<Map<String, Object>> expected = new ArrayList<>();
        long smallGroupBytes = 0;
        for (int f = 0; f < 6; f++) {
            EveryTypeRows rows = new EveryTypeRows(17L * f + codec.length(), 250 + 40 * f);
            Path file = write(new ParallelParquetWriter(POOL, 2, "snappy", true, 1 << 20, 8 * 1024, METADATA),
                    rows);
            files.add(file);
            expected.addAll(ParquetTestRows.read(file));
            smallGroupBytes = Math.max(smallGroupBytes, footer(file).getBlocks().get(0).getTotalByteSize());
        }
        long rowGroupBytes = smallGroupBytes * 5 / 2; // two or three of the files' row groups each
        Path merged = dir.resolve("merged.parquet");
        ParquetMerge.Merged result;
        try (OutputStream out = Files.newOutputStream(merged)) {
            result = new ParquetMerge(codec, dictionary, rowGroupBytes, 8 * 1024).merge(inputs(files), out);
        }

        assertEquals(expected, ParquetTestRows.read(merged), "the merged file's rows, value for value and in order");
        assertEquals(expected.size(), result.records());
        assertEquals(Files.size(merged), result.bytes());
        ParquetMetadata footer = footer(merged);
        List<BlockMetaData> groups = footer.getBlocks();
        assertTrue(groups.size() >= 2 && groups.size() <= 3, "6 row groups merged 2 or 3 at a time: " + groups.size());
        for (BlockMetaData group : groups.subList(0, groups.size() - 1)) {
            assertTrue(group.getRowCount() >= 2 * 250, "a row group takes at least two files' rows: " + group);
        }
        assertEquals(METADATA.get("writer.time.zone"),
                footer.getFileMetaData().getKeyValueMetaData().get("writer.time.zone"));
        assertEquals(codec.equals("none") ? "UNCOMPRESSED" : codec.toUpperCase(java.util.Locale.ROOT),
                groups.get(0).getColumns().get(0).getCodec().name());
    }

    @Test
    void filesOfOneSchemaAreOneKindAndAnotherSchemaIsAnother() throws IOException {
        ParallelParquetWriter writer = new ParallelParquetWriter(POOL, 1, "snappy", true, 1 << 20, 8 * 1024,
                METADATA);
        Path a = write(writer, new EveryTypeRows(1, 10));
        Path b = write(writer, new EveryTypeRows(2, 20));
        Schema fewer = new Schema.Parser().parse("""
                {"type": "record", "name": "Fewer", "fields": [{"name": "id", "type": "long"}]}""");
        Path c = dir.resolve("c.parquet");
        EveryTypeRows rows = new EveryTypeRows(3, 5);
        try (OutputStream out = Files.newOutputStream(c)) {
            writer.write(EveryTypeRows.SCHEMA, fewer, rows.datums, out);
        }
        assertEquals(ParquetMerge.kindOf(input(a)), ParquetMerge.kindOf(input(b)));
        assertTrue(!ParquetMerge.kindOf(input(a)).equals(ParquetMerge.kindOf(input(c))));

        try (OutputStream out = Files.newOutputStream(dir.resolve("refused.parquet"))) {
            IOException refused = assertThrows(IOException.class,
                    () -> new ParquetMerge("snappy", true, 1 << 20, 8 * 1024).merge(inputs(List.of(a, c)), out));
            assertTrue(refused.getMessage().contains("another schema"), refused.getMessage());
        }
    }

    private Path write(ParallelParquetWriter writer, EveryTypeRows rows) throws IOException {
        Path file = dir.resolve("part-" + System.nanoTime() + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            writer.write(EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums, out);
        }
        return file;
    }

    private static List<InputFile> inputs(List<Path> files) throws IOException {
        List<InputFile> inputs = new ArrayList<>();
        for (Path file : files) {
            inputs.add(input(file));
        }
        return inputs;
    }

    private static InputFile input(Path file) throws IOException {
        return HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new Configuration());
    }


    private static ParquetMetadata footer(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(input(file))) {
            return reader.getFooter();
        }
    }
}
