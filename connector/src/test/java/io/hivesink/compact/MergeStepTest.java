package io.hivesink.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.table.DataFileName;

/** The merge step on a local filesystem: every record once in the next generation, in batch order. */
class MergeStepTest {

    private static final Schema SCHEMA = SchemaBuilder.record("Order").fields()
            .requiredLong("id").requiredString("note").endRecord();

    @TempDir
    java.nio.file.Path dir;
    private FileSystem fs;
    private Path current;
    private Path next;

    @BeforeEach
    void setUp() throws IOException {
        fs = FileSystem.getLocal(new Configuration()).getRaw();
        current = new Path(dir.toUri().toString(), "partitions_of_orders/day=2026-11-29/0");
        next = new Path(dir.toUri().toString(), "partitions_of_orders/day=2026-11-29/compact-i-1");
        fs.mkdirs(current);
    }

    /** A batch's file: ids {@code from} to {@code from + count - 1}, written at {@code time}, notes padded. */
    private void landed(String batch, long from, int count, long time, int padding) throws IOException {
        java.util.Random random = new java.util.Random(from);
        Path path = new Path(current, DataFileName.of(batch, 1, ".avro"));
        try (OutputStream out = fs.create(path);
                DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(SCHEMA))) {
            writer.setCodec(CodecFactory.deflateCodec(1));
            writer.create(SCHEMA, out);
            for (long id = from; id < from + count; id++) {
                GenericRecord record = new GenericData.Record(SCHEMA);
                record.put("id", id);
                StringBuilder note = new StringBuilder().append(id);
                for (int i = 0; i < padding; i++) {
                    note.append((char) ('a' + random.nextInt(26))); // not compressible away
                }
                record.put("note", note.toString());
                writer.append(record);
            }
        }
        fs.setTimes(path, time, -1);
    }

    private List<Long> ids(Path file) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DataFileStream<GenericRecord> in = new DataFileStream<>(fs.open(file), new GenericDatumReader<>())) {
            in.forEach(record -> ids.add((Long) record.get("id")));
        }
        return ids;
    }

    @Test
    void writesTheNextGenerationWithEveryRecordOnce() throws IOException {
        // batch order is the order written, not the names' order: b-10 was written before b-9's task's batch
        landed("a-1", 0, 10, 1_000, 0);
        landed("b-10", 10, 10, 2_000, 0);
        landed("a-2", 20, 10, 3_000, 0);
        landed("big-1", 30, 2000, 4_000, 2000); // far above the target: copied as it is
        landed("b-9", 2030, 10, 5_000, 0);
        fs.create(new Path(current, "_SUCCESS")).close();
        MergeStep step = new MergeStep(fs, new AvroFileMerger(), 64 * 1024, 3);
        fs.create(new Path(next, "part-compact-i-1-00002.avro")).close(); // left by a crashed run over another listing

        MergeStep.Result result = step.run(current, next, "compact-i-1");

        assertNull(result.skipped());
        assertEquals(1, result.merged().size());
        MergeStep.MergedFile merged = result.merged().get(0);
        assertEquals(List.of("part-a-1-00001.avro", "part-b-10-00001.avro", "part-a-2-00001.avro",
                "part-b-9-00001.avro"), merged.sources());
        assertEquals(40, merged.records());
        assertEquals(new Path(next, "part-compact-i-1-00001.avro"), merged.path());
        List<Long> expected = new ArrayList<>();
        for (long id = 0; id < 30; id++) {
            expected.add(id);
        }
        for (long id = 2030; id < 2040; id++) {
            expected.add(id);
        }
        assertEquals(expected, ids(merged.path()), "records in batch order");
        assertEquals(List.of(new Path(next, "part-big-1-00001.avro")), result.copied());
        assertEquals(2000, ids(result.copied().get(0)).size());
        List<String> nextFiles = new ArrayList<>();
        for (FileStatus file : fs.listStatus(next)) {
            nextFiles.add(file.getPath().getName());
        }
        nextFiles.sort(null);
        assertEquals(List.of("part-big-1-00001.avro", "part-compact-i-1-00001.avro"), nextFiles);
        assertEquals(5, fs.listStatus(current).length - 1, "the current generation is untouched");

        MergeStep.Result again = step.run(current, next, "compact-i-1"); // after a crash: the same files again
        assertEquals(expected, ids(again.merged().get(0).path()));
        assertEquals(2, fs.listStatus(next).length);
    }

    @Test
    void leavesAPartitionWithForeignFilesOrTooFewSmallOnes() throws IOException {
        landed("a-1", 0, 10, 1_000, 0);
        landed("a-2", 10, 10, 2_000, 0);
        MergeStep step = new MergeStep(fs, new AvroFileMerger(), 64 * 1024, 3);
        assertTrue(step.run(current, next, "compact-i-1").skipped().startsWith("fewer than 3 of its 2 files"));
        landed("a-3", 20, 10, 3_000, 0);
        fs.create(new Path(current, "000000_0")).close(); // a Hive INSERT's file
        MergeStep.Result result = step.run(current, next, "compact-i-1");
        assertEquals("it holds files hive-sink did not write: [000000_0]", result.skipped());
        assertTrue(!fs.exists(next), "nothing written");
        assertTrue(Files.exists(dir.resolve("partitions_of_orders/day=2026-11-29/0/000000_0")));
    }
}
