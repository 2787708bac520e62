package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.metastore.InMemoryMetastore;

/**
 * A record whose time partition its task knows is marked done is late: {@code partition.late.policy} lands it and
 * counts it in the ledger ({@code land}), sets it aside for the errant-record reporter ({@code dlq}), or fails the
 * task naming it ({@code fail}). Records of hours not marked are never late, whatever the policy.
 */
class LateRecordsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    /** 2026-11-18T11:00:00Z. */
    private static final long H0 = 1_794_999_600_000L;
    private static final String MARKED_HOUR = "dt=2026-11-18/hr=11";

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private PartsRig rig;

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, metastore, System::currentTimeMillis);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    /** A task whose first batch has its table's 11:00 hour marked done (the watermark is 12:10). */
    private TaskParts taskWithHourElevenDone(String policy, CommitPipeline[] pipeline) {
        Map<String, String> props = new HashMap<>(Map.of("partitioner", "time", "partition.time.pattern",
                "dt=yyyy-MM-dd/hr=HH", "partition.done.lateness.ms", "0", "partition.late.policy", policy));
        if (policy.equals("dlq")) {
            props.put("errors.tolerance", "all");
            props.put("errors.log.enable", "true");
        }
        TaskParts parts = rig.task(0, props);
        parts.committer().claim(List.of(P0));
        pipeline[0] = rig.markingPipeline(parts);
        rig.takeStamped(parts, P0, 0, H0 + 10 * MINUTE, H0 + HOUR + 10 * MINUTE);
        pipeline[0].send(parts.buffer().drain(), 1, "test");
        return parts;
    }

    @Test
    void landedLateRecordsAreCountedInTheLedgerPerHivePartition() throws Exception {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        TaskParts parts = taskWithHourElevenDone("land", pipeline);

        rig.takeStamped(parts, P0, 2, H0 + 20 * MINUTE, H0 + 40 * MINUTE, H0 + HOUR + 20 * MINUTE);
        Batch batch = parts.buffer().drain();
        assertEquals(3, batch.records(), "late records land");
        pipeline[0].send(batch, 1, "test");
        assertEquals(2, batch.lateRecords(), "counted as their batch commits");

        Map<String, Long> late = new TreeMap<>();
        for (GenericRecord row : ledgerRows()) {
            late.merge(row.get("partition_name").toString(), (Long) row.get("late_records"), Long::sum);
        }
        assertEquals(Map.of(MARKED_HOUR, 2L, "dt=2026-11-18/hr=12", 0L), late,
                "the hour marked done counts its late records; the open hour has none");
    }

    @Test
    void lateRecordsGoToTheErrantRecordReporterWithDlqAndTheOthersLand() {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        TaskParts parts = taskWithHourElevenDone("dlq", pipeline);

        rig.takeStamped(parts, P0, 2, H0 + 20 * MINUTE, H0 + HOUR + 20 * MINUTE);
        Batch batch = parts.buffer().drain();
        assertEquals(1, batch.records(), "the record of the open hour lands");
        assertEquals(0, batch.lateRecords());
        assertEquals(1, batch.rejected().size());
        String why = batch.rejected().get(0).error().getMessage();
        assertEquals(2, batch.rejected().get(0).record().kafkaOffset());
        assertTrue(why.contains("Record topic=events partition=0 offset=2 is late: time partition " + MARKED_HOUR
                + " of table events is marked done"), why);
        for (RecordGroup group : batch.groups()) {
            assertEquals("dt=2026-11-18/hr=12", group.partition().path(), "nothing lands in the hour marked done");
        }
    }

    @Test
    void aLateRecordFailsTheTaskWithFailNamingItAndTheFix() {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        TaskParts parts = taskWithHourElevenDone("fail", pipeline);

        rig.takeStamped(parts, P0, 2, H0 + HOUR + 20 * MINUTE, H0 + 30 * MINUTE);
        DataException e = assertThrows(DataException.class, () -> parts.buffer().drain());
        assertTrue(e.getMessage().contains("Record topic=events partition=0 offset=3 is late: time partition "
                + MARKED_HOUR + " of table events is marked done, or older than one that is, and "
                + "partition.late.policy=fail"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Set partition.late.policy=land"), e.getMessage());
    }

    @Test
    void aNewInstanceOfTheTaskReadsWhereTheMarksStandBeforeItsFirstBatch() {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        taskWithHourElevenDone("land", pipeline);

        // the task fails at a late record, is restarted, and takes it first: it must fail again, not land
        TaskParts again = rig.task(0, Map.of("partitioner", "time", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH",
                "partition.done.lateness.ms", "0", "partition.late.policy", "fail"));
        again.committer().claim(List.of(P0));
        rig.takeStamped(again, P0, 2, H0 + 30 * MINUTE);
        DataException e = assertThrows(DataException.class, () -> again.buffer().drain());
        assertTrue(e.getMessage().contains("time partition " + MARKED_HOUR + " of table events is marked done"),
                e.getMessage());
    }

    @Test
    void anUpgradeAddsLateRecordsToTheLedgerEvenWithSchemaEvolutionOff() throws Exception {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        taskWithHourElevenDone("land", pipeline);
        // the ledger as the release before this column left it
        org.apache.hadoop.hive.metastore.api.Table ledger = metastore.tables.get("db.hive_sink_ledger");
        org.apache.avro.Schema current = new org.apache.avro.Schema.Parser().parse(
                ledger.getParameters().get("avro.schema.literal"));
        List<org.apache.avro.Schema.Field> before = new ArrayList<>();
        for (org.apache.avro.Schema.Field field : current.getFields()) {
            if (!field.name().equals("late_records")) {
                before.add(new org.apache.avro.Schema.Field(field, field.schema()));
            }
        }
        ledger.getParameters().put("avro.schema.literal", org.apache.avro.Schema.createRecord(current.getName(),
                current.getDoc(), current.getNamespace(), false, before).toString());
        ledger.getParameters().remove("hive-sink.schema-fingerprint");

        rig.task(1, Map.of("schema.evolution", "none")); // starts, evolving the ledger
        assertTrue(metastore.tables.get("db.hive_sink_ledger").getParameters().get("avro.schema.literal")
                .contains("late_records"));
    }

    @Test
    void recordsOfHoursNotMarkedAreNotLateWhateverThePolicy() {
        CommitPipeline[] pipeline = new CommitPipeline[1];
        TaskParts parts = taskWithHourElevenDone("fail", pipeline);

        rig.takeStamped(parts, P0, 2, H0 + HOUR + 30 * MINUTE, H0 + 5 * HOUR);
        Batch batch = parts.buffer().drain();
        assertEquals(2, batch.records());
        assertEquals(0, batch.lateRecords());
    }

    @Test
    void dlqWithoutADeadLetterQueueOrErrorLogIsRefusedAtConfiguration() {
        Map<String, String> props = new HashMap<>(Map.of("name", "conn", "fs.url", "file:///",
                "hive.metastore.uris", "thrift://metastore.invalid:9083", "table.events.partition.late.policy", "dlq",
                "errors.tolerance", "all"));
        ConfigException noQueue = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(noQueue.getMessage().contains("table.events.partition.late.policy=dlq needs somewhere to send "
                + "late records: set errors.deadletterqueue.topic.name, or errors.log.enable=true."),
                noQueue.getMessage());
        props.put("errors.tolerance", "none");
        props.put("errors.log.enable", "true");
        ConfigException none = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(none.getMessage().contains("table.events.partition.late.policy=dlq needs errors.tolerance=all"),
                none.getMessage());
        props.put("errors.tolerance", "all");
        assertEquals(Map.of(), HiveSinkConfig.parse(props).crossKeyProblems());
    }

    /** The rows of the ledger's partitions (one per batch). */
    private List<GenericRecord> ledgerRows() throws Exception {
        List<GenericRecord> rows = new ArrayList<>();
        for (Partition partition : metastore.partitions.getOrDefault("db.hive_sink_ledger", Map.of()).values()) {
            File[] files = new File(new org.apache.hadoop.fs.Path(partition.getSd().getLocation()).toUri()
                    .getPath()).listFiles();
            for (File file : files == null ? new File[0] : files) {
                if (file.getName().endsWith(".avro")) {
                    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file,
                            new GenericDatumReader<>())) {
                        reader.forEach(rows::add);
                    }
                }
            }
        }
        return rows;
    }
}
