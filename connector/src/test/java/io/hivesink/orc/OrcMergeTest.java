package io.hivesink.orc;

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
import org.apache.hadoop.fs.FileSystem;
import org.apache.orc.Reader;
import org.apache.orc.StripeInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.hivesink.testing.EveryTypeRows;

/**
 * Merging the connector's ORC files: every value of every type comes back from ORC's reader in the files' order,
 * timestamps and dates unchanged, in stripes that each take several of the small files' stripes.
 */
class OrcMergeTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(2);
    private static final Map<String, String> METADATA = Map.of("org.apache.spark.version", "3.1.0");

    @TempDir
    Path dir;

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"snappy", "zstd", "none"})
    void everyValueOfEveryFileComesBackInOrderInFewerStripes(String codec) throws IOException {
        List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
        List<Map<String, Object>> expected = new ArrayList<>();
        for (int f = 0; f < 6; f++) {
            EveryTypeRows rows = new EveryTypeRows(13L * f + codec.length(), 900 + 50 * f);
            Path file = write(new ParallelOrcWriter(POOL, 2, "snappy", 64L << 20, METADATA), EveryTypeRows.SCHEMA,
                    rows);
            files.add(new org.apache.hadoop.fs.Path(file.toUri()));
            expected.addAll(OrcTestRows.read(file, EveryTypeRows.SCHEMA));
        }
        Path merged = dir.resolve("merged.orc");
        OrcMerge.Merged result;
        try (OutputStream out = Files.newOutputStream(merged)) {
            result = new OrcMerge(codec, 64L << 20).merge(fs(), files, out);
        }

        assertEquals(expected, OrcTestRows.read(merged, EveryTypeRows.SCHEMA), "the rows, value for value, in order");
        assertEquals(expected.size(), result.records());
        assertEquals(Files.size(merged), result.bytes());
        try (Reader reader = OrcTestRows.reader(merged)) {
            List<StripeInformation> stripes = reader.getStripes();
            assertEquals(1, stripes.size(), "6 files' stripes as one of 64 MiB");
            assertEquals(codec.equals("none") ? "NONE" : codec.toUpperCase(java.util.Locale.ROOT),
                    reader.getCompressionKind().name());
            assertEquals("3.1.0", java.nio.charset.StandardCharsets.UTF_8.decode(
                    reader.getMetadataValue("org.apache.spark.version")).toString());
            assertEquals("0.12", reader.getFileVersion().getName(), "the version ORC 1.3 readers read");
        }
    }

    @Test
    void stripesAreCutAtTheirSize() throws IOException {
        List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
        List<Map<String, Object>> expected = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            EveryTypeRows rows = new EveryTypeRows(100L + f, 4_000);
            Path file = write(new ParallelOrcWriter(POOL, 1, "snappy", 64L << 20, METADATA), EveryTypeRows.SCHEMA,
                    rows);
            files.add(new org.apache.hadoop.fs.Path(file.toUri()));
            expected.addAll(OrcTestRows.read(file, EveryTypeRows.SCHEMA));
        }
        Path merged = dir.resolve("merged.orc");
        try (OutputStream out = Files.newOutputStream(merged)) {
            new OrcMerge("snappy", 256 * 1024).merge(fs(), files, out);
        }
        assertEquals(expected, OrcTestRows.read(merged, EveryTypeRows.SCHEMA));
        try (Reader reader = OrcTestRows.reader(merged)) {
            assertTrue(reader.getStripes().size() > 1, "stripes of 256 KiB: " + reader.getStripes().size());
        }
    }

    @Test
    void filesOfAnotherSchemaAreAnotherKindAndAreNotMerged() throws IOException {
        Schema fewer = new Schema.Parser().parse("""
                {"type": "record", "name": "Fewer", "fields": [{"name": "id", "type": "long"}]}""");
        ParallelOrcWriter writer = new ParallelOrcWriter(POOL, 1, "snappy", 64L << 20, METADATA);
        Path a = write(writer, EveryTypeRows.SCHEMA, new EveryTypeRows(1, 10));
        Path b = write(writer, EveryTypeRows.SCHEMA, new EveryTypeRows(2, 20));
        Path c = write(writer, fewer, new EveryTypeRows(3, 5));
        assertEquals(OrcMerge.kindOf(fs(), hadoop(a)), OrcMerge.kindOf(fs(), hadoop(b)));
        assertTrue(!OrcMerge.kindOf(fs(), hadoop(a)).equals(OrcMerge.kindOf(fs(), hadoop(c))));
        try (OutputStream out = Files.newOutputStream(dir.resolve("refused.orc"))) {
            IOException refused = assertThrows(IOException.class,
                    () -> new OrcMerge("snappy", 64L << 20).merge(fs(), List.of(hadoop(a), hadoop(c)), out));
            assertTrue(refused.getMessage().contains("another schema"), refused.getMessage());
        }
    }

    private Path write(ParallelOrcWriter writer, Schema columns, EveryTypeRows rows) throws IOException {
        Path file = dir.resolve("part-" + System.nanoTime() + ".orc");
        try (OutputStream out = Files.newOutputStream(file)) {
            writer.write(EveryTypeRows.SCHEMA, columns, rows.datums, out);
        }
        return file;
    }

    private static org.apache.hadoop.fs.Path hadoop(Path file) {
        return new org.apache.hadoop.fs.Path(file.toUri());
    }

    private static FileSystem fs() throws IOException {
        return FileSystem.getLocal(new Configuration());
    }
}
