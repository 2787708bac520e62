package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.done.PartitionMarker;
import io.hivesink.metastore.InMemoryMetastore;

/**
 * Time partitions are marked done once the table's watermark passes their end, in order, each once across the tasks
 * that feed the table and across restarts: their Hive partitions' parameters, a {@code _SUCCESS} file in each, and
 * last one row in the done table, which the metastore adds once however many tasks reach it.
 */
class DoneMarkingTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final TopicPartition P1 = new TopicPartition("events", 1);
    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    /** 2026-11-18T11:00:00Z. */
    private static final long H0 = 1_794_999_600_000L;

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private PartsRig rig;
    /** How far the tasks' clock is ahead of the system's. */
    private final java.util.concurrent.atomic.AtomicLong skew = new java.util.concurrent.atomic.AtomicLong();

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, metastore, () -> System.currentTimeMillis() + skew.get());
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private TaskParts task(int task, TopicPartition tp, Map<String, String> more) {
        Map<String, String> props = new java.util.HashMap<>(Map.of("partitioner", "time", "partition.time.pattern",
                "dt=yyyy-MM-dd/hr=HH", "partition.done.lateness.ms", "0"));
        props.putAll(more);
        TaskParts parts = rig.task(task, props);
        parts.committer().claim(List.of(tp));
        return parts;
    }

    private static void commit(PartsRig rig, TaskParts parts, CommitPipeline pipeline, TopicPartition tp, long from,
            long... times) {
        rig.takeStamped(parts, tp, from, times);
        pipeline.send(parts.buffer().drain(), 1, "test");
    }

    /** The done table's partitions: per time partition, its row. */
    private Map<String, GenericRecord> doneRows() throws Exception {
        Map<String, GenericRecord> rows = new TreeMap<>();
        for (Partition partition : metastore.partitions.getOrDefault("db.hive_sink_done", Map.of()).values()) {
            assertEquals("events", partition.getValues().get(0));
            File[] files = local(partition.getSd().getLocation()).listFiles();
            assertNotNull(files, "the row's directory is there: " + partition.getSd().getLocation());
            List<GenericRecord> read = new ArrayList<>();
            for (File file : files) {
                if (file.getName().endsWith(".avro")) {
                    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file,
                            new GenericDatumReader<>())) {
                        reader.forEach(read::add);
                    }
                }
            }
            assertEquals(1, read.size(), "one row per time partition: " + partition.getValues());
            rows.put(partition.getValues().get(1), read.get(0));
        }
        return rows;
    }

    /** The local directory of a location, as Hadoop names it (its %XX kept as they are). */
    private static File local(String location) {
        return new File(new org.apache.hadoop.fs.Path(location).toUri().getPath());
    }

    private Partition hivePartition(String day, String hour) {
        return metastore.partitions.get("db.events").get("dt=" + day + "/hr=" + hour);
    }

    @Test
    void eachHourIsMarkedOnceInOrderWhenEveryPartitionsWatermarkPassedIt() throws Exception {
        TaskParts first = task(0, P0, Map.of());
        TaskParts second = task(1, P1, Map.of());
        CommitPipeline pipeline0 = rig.markingPipeline(first);
        CommitPipeline pipeline1 = rig.markingPipeline(second);

        commit(rig, first, pipeline0, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE, H0 + 2 * HOUR + 10 * MINUTE);
        assertEquals(Map.of(), doneRows(), "P1 has landed nothing: no hour is done");

        commit(rig, second, pipeline1, P1, 0, H0 + 20 * MINUTE, H0 + HOUR + 30 * MINUTE);
        assertEquals(List.of("dt=2026-11-18/hr=11"), List.copyOf(doneRows().keySet()),
                "the watermark is 12:30: 11:00-12:00 is done, 12:00-13:00 is not");
        GenericRecord row = doneRows().get("dt=2026-11-18/hr=11");
        assertEquals(H0, row.get("period_start"));
        assertEquals(H0 + HOUR, row.get("period_end"));
        assertEquals(H0 + HOUR + 30 * MINUTE, row.get("watermark"));
        assertEquals(1, row.get("hive_partitions"));
        assertEquals(2, row.get("file_count"), "one file per task's batch in that hour");
        assertEquals(2L, row.get("record_count"), "one record of each task's, as their batches' ledger rows say");
        Partition done = hivePartition("2026-11-18", "11");
        assertTrue(done.getParameters().containsKey(PartitionMarker.DONE_TIME));
        assertTrue(Files.exists(local(done.getSd().getLocation()).toPath().resolve("_SUCCESS")));
        Partition open = hivePartition("2026-11-18", "12");
        assertFalse(open.getParameters() != null && open.getParameters().containsKey(PartitionMarker.DONE_TIME));
        assertFalse(Files.exists(local(open.getSd().getLocation()).toPath().resolve("_SUCCESS")));

        commit(rig, first, pipeline0, P0, 3, H0 + 2 * HOUR + 15 * MINUTE); // task 0 reads where the marks stand
        commit(rig, second, pipeline1, P1, 2, H0 + 3 * HOUR + 5 * MINUTE); // watermark 13:15: task 1 marks 12:00
        commit(rig, first, pipeline0, P0, 4, H0 + 2 * HOUR + 20 * MINUTE); // task 0 reaches 12:00 too: it lost
        assertEquals(List.of("dt=2026-11-18/hr=11", "dt=2026-11-18/hr=12"), List.copyOf(doneRows().keySet()));

        // a new run of task 0 starts where the done table says, and marks on from there
        TaskParts again = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(again);
        commit(rig, again, pipeline, P0, 5, H0 + 5 * HOUR);
        commit(rig, second, pipeline1, P1, 3, H0 + 5 * HOUR);
        assertEquals(List.of("dt=2026-11-18/hr=11", "dt=2026-11-18/hr=12", "dt=2026-11-18/hr=13",
                "dt=2026-11-18/hr=14", "dt=2026-11-18/hr=15"), List.copyOf(doneRows().keySet()),
                "an hour without records is done too");
        assertEquals(0, doneRows().get("dt=2026-11-18/hr=15").get("hive_partitions"));
        assertEquals(1, new File(dir.resolve("warehouse").toFile(), "db.db/rows_of_hive_sink_done/table_name=events")
                .list((d, name) -> name.contains("hr%3D12")).length);
        File[] attempts = new File(dir.resolve("warehouse").toFile(),
                "db.db/rows_of_hive_sink_done/table_name=events/time_partition=dt%3D2026-11-18%2Fhr%3D12").listFiles();
        assertEquals(1, attempts.length, "the task that lost the race deleted its row");
    }

    @Test
    void aDelayHoldsTheMarkBackAndNoSuccessFileIsWrittenWhereTheTableSaysNot() throws Exception {
        TaskParts parts = task(0, P0, Map.of("partition.done.delay.ms", Long.toString(30 * MINUTE),
                "partition.done.success.file", "false"));
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 20 * MINUTE);
        assertEquals(Map.of(), doneRows(), "12:20 is not 30 minutes past 12:00");
        commit(rig, parts, pipeline, P0, 2, H0 + HOUR + 40 * MINUTE);
        assertEquals(List.of("dt=2026-11-18/hr=11"), List.copyOf(doneRows().keySet()));
        Partition done = hivePartition("2026-11-18", "11");
        assertTrue(done.getParameters().containsKey(PartitionMarker.DONE_TIME));
        assertFalse(Files.exists(local(done.getSd().getLocation()).toPath().resolve("_SUCCESS")));
    }

    @Test
    void aFileNotOfTheConnectorsLeavesTheRecordCountUnknownAndAMissingLedgerFileHasTheMarkTriedAgain()
            throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE);
        // hour 11 is done: its row counts its one record
        assertEquals(1L, doneRows().get("dt=2026-11-18/hr=11").get("record_count"));

        // hour 12 holds a file someone else put there (a colon in its name, as object stores allow)
        Files.writeString(local(hivePartition("2026-11-18", "12").getSd().getLocation()).toPath()
                .resolve("export-2026-11-18T12:00.csv"), "x");
        commit(rig, parts, pipeline, P0, 2, H0 + 2 * HOUR + 10 * MINUTE);
        GenericRecord twelve = doneRows().get("dt=2026-11-18/hr=12");
        assertEquals(null, twelve.get("record_count"), "a file no ledger row counts: the count is unknown");
        assertEquals(2, twelve.get("file_count"));

        // hour 13's one batch (the second) has lost its ledger file (a store that failed): the mark waits for it
        Path ledgerFile;
        try (java.util.stream.Stream<Path> files = Files.walk(dir.resolve("warehouse"))) {
            ledgerFile = files.filter(f -> f.getFileName().toString().startsWith("ledger-")
                    && f.getFileName().toString().endsWith("-2.avro")).findFirst().orElseThrow();
        }
        Path aside = ledgerFile.resolveSibling("aside");
        Files.move(ledgerFile, aside);
        TaskParts restarted = task(0, P0, Map.of()); // which knows its batches from their ledger files only
        CommitPipeline again = rig.markingPipeline(restarted);
        commit(rig, restarted, again, P0, 3, H0 + 3 * HOUR + 5 * MINUTE);
        assertFalse(doneRows().containsKey("dt=2026-11-18/hr=13"), "not marked while its count cannot be read");
        Files.move(aside, ledgerFile);
        commit(rig, restarted, again, P0, 4, H0 + 3 * HOUR + 20 * MINUTE);
        assertEquals(1L, doneRows().get("dt=2026-11-18/hr=13").get("record_count"), "marked once it is back");
    }

    @Test
    void aMarkWhoseAnswerWasLostKeepsItsRow() throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE);
        metastore.loseAnswerOfNextAddPartitionsTo = "hive_sink_done";
        commit(rig, parts, pipeline, P0, 1, H0 + HOUR + 20 * MINUTE);
        assertEquals(List.of("dt=2026-11-18/hr=11"), List.copyOf(doneRows().keySet()),
                "added, though the metastore's answer said nothing was: the row is kept, not taken for a loser's");
    }

    @Test
    void aLateRecordThatLandsIsCountedOnItsHivePartitionAndInTheDoneRowThatReplacesTheFirst() throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE);
        GenericRecord first = doneRows().get("dt=2026-11-18/hr=11");
        assertEquals(1L, first.get("record_count"));
        assertEquals(0L, first.get("late_records"));
        Partition eleven = hivePartition("2026-11-18", "11");
        assertEquals("1", eleven.getParameters().get(PartitionMarker.DONE_RECORDS));
        assertEquals("1", eleven.getParameters().get(PartitionMarker.DONE_FILES));
        assertEquals("0", eleven.getParameters().get(PartitionMarker.LATE_RECORDS));
        String doneTime = eleven.getParameters().get(PartitionMarker.DONE_TIME);
        String firstRow = doneLocation("dt=2026-11-18/hr=11");
        age(firstRow, 3 * HOUR); // written three hours ago

        commit(rig, parts, pipeline, P0, 2, H0 + 40 * MINUTE, H0 + 50 * MINUTE); // two late records: they land
        GenericRecord noted = doneRows().get("dt=2026-11-18/hr=11");
        assertEquals(3L, noted.get("record_count"), "the late records are counted");
        assertEquals(2L, noted.get("late_records"));
        assertEquals(2, noted.get("file_count"));
        assertEquals(first.get("done_time"), noted.get("done_time"), "still the mark's time");
        assertEquals(first.get("watermark"), noted.get("watermark"));
        eleven = hivePartition("2026-11-18", "11");
        assertEquals("3", eleven.getParameters().get(PartitionMarker.DONE_RECORDS));
        assertEquals("2", eleven.getParameters().get(PartitionMarker.DONE_FILES));
        assertEquals("2", eleven.getParameters().get(PartitionMarker.LATE_RECORDS));
        assertEquals(doneTime, eleven.getParameters().get(PartitionMarker.DONE_TIME));
        String secondRow = doneLocation("dt=2026-11-18/hr=11");
        assertTrue(local(firstRow).isDirectory(), "replaced just now: it stays a while, for queries planned before");

        commit(rig, parts, pipeline, P0, 4, H0 + 55 * MINUTE);
        assertEquals(2L, doneRows().get("dt=2026-11-18/hr=11").get("late_records"),
                "an hour noted a moment ago is noted again a minute later");
        skew.addAndGet(2 * MINUTE);
        age(secondRow, 2 * HOUR); // so the first row was replaced two hours ago
        commit(rig, parts, pipeline, P0, 5, H0 + 2 * HOUR);
        assertEquals(3L, doneRows().get("dt=2026-11-18/hr=11").get("late_records"));
        assertFalse(local(firstRow).exists(), "replaced more than an hour ago: removed");
        assertTrue(local(secondRow).isDirectory(), "replaced just now: it stays");
    }

    @Test
    void aDoneRowWhoseFileIsGoneIsWrittenAgainAtTheNextNote() throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE);
        String doneTime = hivePartition("2026-11-18", "11").getParameters().get(PartitionMarker.DONE_TIME);
        org.apache.commons.io.FileUtils.deleteDirectory(local(doneLocation("dt=2026-11-18/hr=11")));
        commit(rig, parts, pipeline, P0, 2, H0 + 30 * MINUTE);
        GenericRecord row = doneRows().get("dt=2026-11-18/hr=11");
        assertEquals(2L, row.get("record_count"));
        assertEquals(1L, row.get("late_records"));
        assertEquals(Long.parseLong(doneTime), row.get("done_time"), "the mark's time, from its Hive partition");
    }

    /** Sets the modification time of a row directory's files {@code ms} back. */
    private static void age(String location, long ms) {
        for (File file : local(location).listFiles()) {
            assertTrue(file.setLastModified(System.currentTimeMillis() - ms));
        }
    }

    @Test
    void aNoteThatFailsLeavesTheCommitAloneAndIsMadeAtALaterRound() throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + 2 * HOUR + 10 * MINUTE);
        assertEquals(List.of("dt=2026-11-18/hr=11", "dt=2026-11-18/hr=12"), List.copyOf(doneRows().keySet()));

        // the done row of 12:00 cannot be read (the store fails): the late batch commits, its note waits
        Path row = local(doneLocation("dt=2026-11-18/hr=12")).toPath().resolve("done.avro");
        byte[] good = Files.readAllBytes(row);
        Files.writeString(row, "not Avro");
        commit(rig, parts, pipeline, P0, 2, H0 + HOUR + 30 * MINUTE);
        Files.write(row, good);
        assertEquals(0L, doneRows().get("dt=2026-11-18/hr=12").get("record_count"), "not noted yet");

        commit(rig, parts, pipeline, P0, 3, H0 + 2 * HOUR + 20 * MINUTE); // the next round notes it
        GenericRecord twelve = doneRows().get("dt=2026-11-18/hr=12");
        assertEquals(1L, twelve.get("late_records"));
        assertEquals(1L, twelve.get("record_count"));
        assertEquals(1, twelve.get("hive_partitions"), "the Hive partition the late record made");
        Partition made = hivePartition("2026-11-18", "12");
        assertEquals("1", made.getParameters().get(PartitionMarker.LATE_RECORDS));
        assertNotNull(made.getParameters().get(PartitionMarker.DONE_TIME), "it gets the mark's parameters");
        assertTrue(Files.exists(local(made.getSd().getLocation()).toPath().resolve("_SUCCESS")));
    }

    @Test
    void aFileNamedLikeABatchsThatIsNotOneLeavesTheCountUnknownAndNothingStuck() throws Exception {
        TaskParts parts = task(0, P0, Map.of());
        CommitPipeline pipeline = rig.markingPipeline(parts);
        commit(rig, parts, pipeline, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE);
        Files.writeString(local(hivePartition("2026-11-18", "11").getSd().getLocation()).toPath()
                .resolve("part-gone-7-00001.avro"), "x"); // named as a batch's, one with no ledger file nor marker
        Files.writeString(local(hivePartition("2026-11-18", "12").getSd().getLocation()).toPath()
                .resolve("part-m-00000.avro"), "x"); // a MapReduce job's output: not the connector's
        commit(rig, parts, pipeline, P0, 2, H0 + 2 * HOUR + 10 * MINUTE);
        assertEquals(null, doneRows().get("dt=2026-11-18/hr=12").get("record_count"));
        assertEquals(2, doneRows().get("dt=2026-11-18/hr=12").get("file_count"));

        commit(rig, parts, pipeline, P0, 3, H0 + 40 * MINUTE); // late in 11:00: noted, its count now unknown
        GenericRecord eleven = doneRows().get("dt=2026-11-18/hr=11");
        assertEquals(3, eleven.get("file_count"));
        assertEquals(null, eleven.get("record_count"));
        assertEquals(null, hivePartition("2026-11-18", "11").getParameters().get(PartitionMarker.DONE_RECORDS),
                "a count no longer known is not left as it was");
        commit(rig, parts, pipeline, P0, 4, H0 + 3 * HOUR + 10 * MINUTE);
        assertTrue(doneRows().containsKey("dt=2026-11-18/hr=13"), "marking and commits go on");
    }

    @Test
    void aLateRecordInAnHourAnotherTaskMarkedIsCountedInItsRow() throws Exception {
        TaskParts first = task(0, P0, Map.of());
        TaskParts second = task(1, P1, Map.of());
        CommitPipeline pipeline0 = rig.markingPipeline(first);
        CommitPipeline pipeline1 = rig.markingPipeline(second);
        commit(rig, first, pipeline0, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 40 * MINUTE);
        commit(rig, second, pipeline1, P1, 0, H0 + 20 * MINUTE, H0 + HOUR + 30 * MINUTE); // task 1 marks 11:00
        assertEquals(2L, doneRows().get("dt=2026-11-18/hr=11").get("record_count"));

        commit(rig, first, pipeline0, P0, 2, H0 + 50 * MINUTE); // task 0 has marked nothing; the watermark is past
        assertEquals(3L, doneRows().get("dt=2026-11-18/hr=11").get("record_count"));
    }

    /** Where the done partition of a time partition points: its row's directory. */
    private String doneLocation(String timePartition) {
        return metastore.partitions.get("db.hive_sink_done").values().stream()
                .filter(p -> p.getValues().get(1).equals(timePartition)).findFirst().orElseThrow()
                .getSd().getLocation();
    }
}
