package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.task.TaskParts;

/**
 * The commit protocol step by step against a real local FileSystem; the metastore is an in-memory fake of the
 * narrow seam (the integration tests run the same protocol on HDFS and a real metastore).
 */
class ExactlyOnceCommitterTest {

    static final Schema EVENT = SchemaBuilder.struct().name("Event")
            .field("id", Schema.INT64_SCHEMA)
            .field("kind", Schema.STRING_SCHEMA)
            .build();
    static final TopicPartition EVENTS_0 = new TopicPartition("events", 0);
    static final TopicPartition EVENTS_1 = new TopicPartition("events", 1);
    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    static final List<TopicPartition> ALL = List.of(EVENTS_0, EVENTS_1, ORDERS_0);

    @TempDir
    Path dir;

    /** The format of the tables the tasks of a test write. */
    String format = "avro";

    @Test
    void aBatchLandsInEveryTableWithItsLedgerRowsAndOffsets() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        assertEquals(Fencing.COMPARE_AND_SET, task.committer.start(Fencing.AUTO), "the fake honours compare-and-set");
        assertEquals(Map.of(), task.committer.claim(ALL));
        task.feed(ALL, 0, 6);
        CommitSummary summary = task.commit();
        assertEquals(18, summary.landed().records());
        assertEquals(2, summary.landed().tables());
        assertEquals(4, summary.landed().files(), "events and orders, kinds a and b");
        assertEquals(Map.of(EVENTS_0, 6L, EVENTS_1, 6L, ORDERS_0, 6L), task.committer.committedOffsets());

        assertEquals(List.of("kind=a", "kind=b"), metastore.partitionNames("db", "events"));
        assertEquals(expectedIds(List.of(EVENTS_0, EVENTS_1), 6), landedIds("events", metastore));
        assertEquals(expectedIds(List.of(ORDERS_0), 6), landedIds("orders", metastore));

        List<GenericRecord> rows = ledgerRows(metastore);
        assertEquals(4, rows.size(), "a row per (table, partition)");
        assertEquals(18L, rows.stream().mapToLong(r -> (Long) r.get("record_count")).sum());
        GenericRecord eventsA = rows.stream().filter(r -> r.get("table_name").toString().equals("events")
                && r.get("partition_name").toString().equals("kind=a")).findFirst().orElseThrow();
        assertEquals(6L, eventsA.get("record_count"));
        assertEquals("[{\"topic\": \"events\", \"kafka_partition\": 0, \"first_offset\": 0, \"last_offset\": 4, "
                + "\"record_count\": 3}, {\"topic\": \"events\", \"kafka_partition\": 1, \"first_offset\": 0, "
                + "\"last_offset\": 4, \"record_count\": 3}]", eventsA.get("kafka_offsets").toString());
        assertEquals(1_000L, eventsA.get("min_timestamp"));
        assertEquals(1_004L, eventsA.get("max_timestamp"));
        assertTrue(stagedFiles().isEmpty(), "staging is left empty: " + stagedFiles());

        Partition marker = metastore.getPartition("db", "hive_sink_ledger", List.of(summary.batchId())).orElseThrow();
        assertEquals(Map.of(EVENTS_0, 6L, EVENTS_1, 6L, ORDERS_0, 6L),
                Ledger.markedOffsetsOf(marker));
    }

    @Test
    void aStagingDirectoryTheStoreWouldNotRemoveGoesAfterTheNextBatch() throws Exception {
        AtomicBoolean storeAway = new AtomicBoolean();
        FileSystem store = new FilterFileSystem(localFileSystem()) {
            @Override
            public String getScheme() {
                return "file";
            }

            @Override
            public boolean delete(org.apache.hadoop.fs.Path path, boolean recursive) throws IOException {
                if (storeAway.get() && recursive) { // a batch's staging directory
                    throw new java.net.ConnectException("Connection refused");
                }
                return super.delete(path, recursive);
            }
        };
        Task task = new Task(new InMemoryMetastore(), 0, FaultInjector.NONE, false, store);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(ALL);
        task.feed(ALL, 0, 4);
        storeAway.set(true);
        task.commit(); // lands; the store goes away as its staging directory is removed
        assertTrue(!stagedFiles().isEmpty(), "its manifest is left");
        storeAway.set(false);

        task.feed(ALL, 4, 6);
        task.commit();

        assertTrue(stagedFiles().isEmpty(), "the next batch's clean removes it, with no rebalance to recover it: "
                + stagedFiles());
    }

    /** Every step, with tables of each file format. */
    static Stream<Arguments> stepsAndFormats() {
        return Stream.of("avro", "parquet", "orc").flatMap(format -> FaultPoint.commitSteps().stream()
                .map(point -> Arguments.of(point, format)));
    }

    @ParameterizedTest
    @MethodSource("stepsAndFormats")
    void aCrashAtAnyStepLosesAndDuplicatesNothing(FaultPoint point, String tableFormat) throws Exception {
        format = tableFormat;
        InMemoryMetastore metastore = new InMemoryMetastore();
        AtomicBoolean armed = new AtomicBoolean();
        Task first = new Task(metastore, 0, at -> {
            if (at == point && armed.get()) {
                throw new SimulatedCrash();
            }
        });
        first.committer.start(Fencing.AUTO);
        first.committer.claim(ALL);
        first.feed(ALL, 0, 10);
        first.commit();
        armed.set(true); // the second batch crashes
        first.feed(ALL, 10, 20);
        assertThrows(SimulatedCrash.class, first::commit);

        Task restarted = new Task(metastore, 0, FaultInjector.NONE);
        restarted.committer.start(Fencing.AUTO);
        Map<TopicPartition, Long> resumeAt = restarted.committer.claim(ALL);
        long expected = point.compareTo(FaultPoint.INTENT_DURABLE) >= 0 ? 20 : 10;
        assertEquals(Map.of(EVENTS_0, expected, EVENTS_1, expected, ORDERS_0, expected), resumeAt,
                "a batch with a durable intent is rolled forward, one without is discarded");
        assertTrue(stagedFiles().isEmpty(), "recovery leaves no staged debris: " + stagedFiles());

        restarted.feed(ALL, resumeAt.get(EVENTS_0), 30);
        restarted.commit();
        assertEquals(expectedIds(List.of(EVENTS_0, EVENTS_1), 30), landedIds("events", metastore));
        assertEquals(expectedIds(List.of(ORDERS_0), 30), landedIds("orders", metastore));
        List<GenericRecord> rows = ledgerRows(metastore);
        assertEquals(90L, rows.stream().mapToLong(r -> (Long) r.get("record_count")).sum(),
                "the ledger counts each landed record once");
        assertTrue(stagedFiles().isEmpty(), "staging is empty after the next commit: " + stagedFiles());
    }

    @Test
    void aBatchDroppedWithADurableIntentIsFinishedFromItsManifestEvenIfARepairAddedItsLedgerPartition()
            throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 6);
        metastore.failNextAddPartitions = true; // its intent durable, its files moved; its partitions not registered
        assertThrows(org.apache.kafka.connect.errors.RetriableException.class, task::commit);
        // the batch is dropped (its partitions closed); MSCK REPAIR TABLE then adds its ledger partition, bare
        String dropped = StateParameters.decode(0, metastore.tables.get("db.hive_sink_state_conn_0")).state().intent()
                .batchId();
        org.apache.hadoop.hive.metastore.api.Partition repaired = new org.apache.hadoop.hive.metastore.api.Partition();
        repaired.setDbName("db");
        repaired.setTableName("hive_sink_ledger");
        repaired.setValues(List.of(dropped));
        repaired.setSd(new org.apache.hadoop.hive.metastore.api.StorageDescriptor(
                metastore.tables.get("db.hive_sink_ledger").getSd()));
        repaired.getSd().setLocation(repaired.getSd().getLocation() + "/batch_id=" + dropped);
        repaired.setParameters(new java.util.HashMap<>());
        metastore.addPartitions(List.of(repaired));

        task.buffer.forget(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 6); // read again from where the partition resumed
        assertThrows(BatchOutOfSequenceException.class, task::commit,
                "the dropped batch is finished first, from its manifest; this one no longer follows on");
        assertEquals(Map.of(EVENTS_0, 6L), task.committer.committedOffsets());
        assertEquals(expectedIds(List.of(EVENTS_0), 6), landedIds("events", metastore), "once each");
    }

    @Test
    void aGapInAPartitionNeverCommittedBeforeIsRefused() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0)); // a new partition: no offset committed yet
        task.feed(List.of(EVENTS_0), 0, 5);
        task.buffer.drain(); // a batch closed and lost on the way, as a path that forgets records would lose it
        task.feed(List.of(EVENTS_0), 5, 10);
        BatchOutOfSequenceException gap = assertThrows(BatchOutOfSequenceException.class, task::commit);
        assertTrue(gap.getMessage().contains("events-0 from 5 where the task resumed it at 0"), gap.getMessage());
        assertEquals(Map.of(EVENTS_0, 0L), gap.committed(), "read again from where the partition resumed");
        assertEquals(List.of(), landedIds("events", metastore), "nothing of the batch landed");

        task.buffer.forget(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 10);
        task.commit();
        assertEquals(expectedIds(List.of(EVENTS_0), 10), landedIds("events", metastore));
    }

    @Test
    void aBatchThatDoesNotFollowOnFromTheCommittedOffsetsIsRefusedAndNothingOfItLands() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 10);
        task.commit();

        // records taken again, as a path that lost track of the partition would take them: an overlap
        task.buffer.forget(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 5, 15);
        BatchOutOfSequenceException overlap = assertThrows(BatchOutOfSequenceException.class, task::commit);
        assertTrue(overlap.getMessage().contains("events-0 from 5 where 10 is committed"), overlap.getMessage());
        assertEquals(Map.of(EVENTS_0, 10L), overlap.committed());
        // a gap is refused as well
        task.buffer.forget(List.of(EVENTS_0));
        task.buffer.resumeAt(Map.of(EVENTS_0, 12L));
        task.feed(List.of(EVENTS_0), 12, 20);
        assertThrows(BatchOutOfSequenceException.class, task::commit);
        assertEquals(expectedIds(List.of(EVENTS_0), 10), landedIds("events", metastore), "nothing of them landed");
        assertTrue(stagedFiles().isEmpty(), "nothing of them is left staged: " + stagedFiles());
        assertEquals(Map.of(EVENTS_0, 10L), task.committer.committedOffsets());

        // read again from the committed offset, the partition goes on
        task.buffer.forget(List.of(EVENTS_0));
        task.buffer.resumeAt(task.committer.committedOffsets());
        task.feed(List.of(EVENTS_0), 0, 20); // what lies below the committed offset is skipped
        task.commit();
        assertEquals(expectedIds(List.of(EVENTS_0), 20), landedIds("events", metastore));
        assertEquals(20L, ledgerRows(metastore).stream().mapToLong(r -> (Long) r.get("record_count")).sum());
    }

    @Test
    void aBatchLandingInAPartitionACompactionHoldsWaitsForTheHoldToGo() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 4);
        task.commit();

        // a compaction writes its hold into the task's state, as another writer: the version moves on
        Table state = metastore.tables.get("db.hive_sink_state_conn_0");
        TaskState.Hold hold = new TaskState.Hold("events", "kind=a", "compact-c-1", null);
        StateParameters.encode(StateParameters.decode(0, state).state().withHold(hold), state.getParameters());
        bumpVersion(state);

        task.feed(List.of(EVENTS_0), 4, 8);
        Batch held = task.buffer.drain();
        BatchHeldException e = assertThrows(BatchHeldException.class, () -> task.committer.commit(held));
        assertTrue(e.getMessage().contains("lands in partition kind=a of table events, which compaction "
                + "compact-c-1 holds"), e.getMessage());
        assertEquals(expectedIds(List.of(EVENTS_0), 4), landedIds("events", metastore), "nothing of it landed");
        assertTrue(stagedFiles().isEmpty(), "nothing of it is left staged: " + stagedFiles());
        assertEquals(Map.of(EVENTS_0, 4L), task.committer.committedOffsets());
        assertEquals(null, StateParameters.decode(0, state).state().intent(), "no intent of it is durable");

        // the compaction gives the partition up: the same batch, tried again, lands
        StateParameters.encode(StateParameters.decode(0, state).state()
                .withoutHold("events", "kind=a", "compact-c-1"), state.getParameters());
        bumpVersion(state);
        task.committer.commit(held);
        assertEquals(expectedIds(List.of(EVENTS_0), 8), landedIds("events", metastore));
        assertEquals(Map.of(EVENTS_0, 8L), task.committer.committedOffsets());
    }

    @Test
    void aTaskStartedWhileACompactionHoldsAPartitionIsHeldToo() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task first = new Task(metastore, 0, FaultInjector.NONE);
        first.committer.start(Fencing.AUTO);
        Table state = metastore.tables.get("db.hive_sink_state_conn_0");
        TaskState.Hold hold = new TaskState.Hold("events", "kind=a", "compact-c-1", null, 5L);
        StateParameters.encode(StateParameters.decode(0, state).state().withHold(hold), state.getParameters());
        bumpVersion(state);

        Task raised = new Task(metastore, 1, FaultInjector.NONE); // tasks.max raised after the compaction listed
        raised.committer.start(Fencing.AUTO);
        assertEquals(List.of(hold), StateParameters.decode(1, metastore.tables.get("db.hive_sink_state_conn_1"))
                .state().holds());
        raised.committer.claim(List.of(EVENTS_1));
        raised.feed(List.of(EVENTS_1), 0, 4);
        assertThrows(BatchHeldException.class, raised::commit);
    }

    @Test
    void aBatchLandsWhereACompactionMovedItsPartitionAndTheReleasedHoldGoes() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 4);
        task.commit();

        // a compaction swapped kind=a to a directory outside the table, then released its hold with it
        Path moved = dir.resolve("warehouse/db.db/partitions_of_events/kind=a/compact-c-1");
        Files.createDirectories(moved);
        Partition partition = metastore.getPartition("db", "events", List.of("a")).orElseThrow();
        try (var files = Files.list(Path.of(java.net.URI.create(partition.getSd().getLocation())))) {
            for (Path file : files.toList()) {
                Files.copy(file, moved.resolve(file.getFileName()));
            }
        }
        partition.getSd().setLocation(moved.toUri().toString());
        metastore.alterPartitions("db", "events", List.of(partition));
        Table state = metastore.tables.get("db.hive_sink_state_conn_0");
        TaskState.Hold released = new TaskState.Hold("events", "kind=a", "compact-c-1", moved.toUri().toString());
        StateParameters.encode(StateParameters.decode(0, state).state().withHold(released), state.getParameters());
        bumpVersion(state);

        // staged where the run knew the partition, the batch is refused at its intent, then staged again there
        task.feed(List.of(EVENTS_0), 4, 8);
        Batch batch = task.buffer.drain();
        BatchHeldException e = assertThrows(BatchHeldException.class, () -> task.committer.commit(batch));
        assertTrue(e.getMessage().contains("compaction compact-c-1 moved partition kind=a of table events to "),
                e.getMessage());
        task.committer.commit(batch);
        assertEquals(expectedIds(List.of(EVENTS_0), 8), landedIds("events", metastore), "every record once");
        try (var files = Files.list(moved)) {
            assertEquals(1 + 1, files.filter(f -> f.getFileName().toString().endsWith(".avro")).count(),
                    "the files the compaction put there, and the new batch's");
        }
        assertEquals(List.of(), StateParameters.decode(0, metastore.tables.get("db.hive_sink_state_conn_0")).state()
                .holds(), "taken in, the released hold goes");

        // a new run of the task, which never saw the hold, learns the location from the metastore
        Task next = new Task(metastore, 0, FaultInjector.NONE);
        next.committer.start(Fencing.AUTO);
        next.committer.claim(List.of(EVENTS_0));
        next.buffer.resumeAt(next.committer.committedOffsets());
        next.feed(List.of(EVENTS_0), 8, 12);
        next.commit();
        assertEquals(expectedIds(List.of(EVENTS_0), 12), landedIds("events", metastore));
    }

    @Test
    void anotherTaskFinishesABatchWhoseOwnerDiedAfterItsIntent() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task dead = new Task(metastore, 0, at -> {
            if (at == FaultPoint.HALF_MOVED) {
                throw new SimulatedCrash();
            }
        });
        dead.committer.start(Fencing.AUTO);
        dead.committer.claim(List.of(EVENTS_0));
        dead.feed(List.of(EVENTS_0), 0, 8);
        assertThrows(SimulatedCrash.class, dead::commit);

        Task other = new Task(metastore, 1, FaultInjector.NONE);
        other.committer.start(Fencing.AUTO);
        assertEquals(Map.of(EVENTS_0, 8L), other.committer.claim(List.of(EVENTS_0)));
        assertEquals(expectedIds(List.of(EVENTS_0), 8), landedIds("events", metastore));
        assertEquals(1, ledgerRows(metastore).stream().map(r -> r.get("task_id")).distinct().count());
    }

    @Test
    void aZombieTaskCannotCommitAfterAnotherTaskClaimedItsPartition() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task zombie = new Task(metastore, 0, FaultInjector.NONE);
        zombie.committer.start(Fencing.AUTO);
        zombie.committer.claim(List.of(EVENTS_0, EVENTS_1));
        zombie.feed(List.of(EVENTS_0, EVENTS_1), 0, 5);
        zombie.commit();

        Task owner = new Task(metastore, 1, FaultInjector.NONE);
        owner.committer.start(Fencing.AUTO);
        assertEquals(Map.of(EVENTS_0, 5L), owner.committer.claim(List.of(EVENTS_0)));

        zombie.feed(List.of(EVENTS_0), 5, 9);
        PartitionsTakenException e = assertThrows(PartitionsTakenException.class, zombie::commit);
        assertEquals(Set.of(EVENTS_0), e.partitions(), e.getMessage());
        owner.feed(List.of(EVENTS_0), 5, 9);
        owner.commit();
        assertEquals(expectedIds(List.of(EVENTS_0), 9), landedIds("events", metastore).stream()
                .filter(id -> id < 1_000_000).toList());

        // the zombie keeps the partition it was not fenced from
        zombie.feed(List.of(EVENTS_1), 5, 7);
        zombie.commit();
        assertEquals(Map.of(EVENTS_1, 7L), zombie.committer.committedOffsets());
        assertTrue(stagedFiles().isEmpty(), "the fenced batch left nothing staged: " + stagedFiles());
    }

    @Test
    void aClaimRidesOutAShortMetastoreOutage() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claimFirstBackoffMs(1);
        metastore.failingTableListings = 2;
        assertEquals(Map.of(), task.committer.claim(ALL), "claimed on the third attempt");
        assertEquals(0, metastore.failingTableListings);

        metastore.failingTableListings = 100;
        ClaimNotPossibleYetException e = assertThrows(ClaimNotPossibleYetException.class,
                () -> task.committer.claim(ALL), "a longer one puts the claim off: the task pauses the partitions");
        assertTrue(e.getMessage().contains("could not claim") && e.getMessage().contains("in 4 attempts"),
                e.getMessage());
    }

    @Test
    void anOlderInstanceOfTheSameTaskIsFencedByTheNewOne() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task old = new Task(metastore, 0, FaultInjector.NONE);
        old.committer.start(Fencing.AUTO);
        old.committer.claim(List.of(EVENTS_0));
        Task current = new Task(metastore, 0, FaultInjector.NONE);
        current.committer.start(Fencing.AUTO);
        current.committer.claim(List.of(EVENTS_0));

        old.feed(List.of(EVENTS_0), 0, 3);
        TaskFencedException e = assertThrows(TaskFencedException.class, old::commit);
        assertTrue(e.getMessage().contains("another instance"), e.getMessage());
        assertEquals(List.of(), landedIds("events", metastore));
    }

    @Test
    void aMetastoreThatIgnoresCompareAndSetIsFencedByLocks() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true;
        Task zombie = new Task(metastore, 0, FaultInjector.NONE);
        assertEquals(Fencing.LOCKS, zombie.committer.start(Fencing.AUTO));
        zombie.committer.claim(List.of(EVENTS_0));
        Task owner = new Task(metastore, 1, FaultInjector.NONE);
        assertEquals(Fencing.LOCKS, owner.committer.start(Fencing.AUTO));
        owner.committer.claim(List.of(EVENTS_0));

        zombie.feed(List.of(EVENTS_0), 0, 3);
        assertThrows(PartitionsTakenException.class, zombie::commit, "the lock-guarded check refuses the zombie");
        owner.feed(List.of(EVENTS_0), 0, 3);
        owner.commit();
        assertEquals(expectedIds(List.of(EVENTS_0), 3), landedIds("events", metastore));
        assertTrue(metastore.lockCalls > 4, "every state write took the lock: " + metastore.lockCalls);
    }

    @Test
    void theFencingProbeNeverPutsBackAPartitionAnotherTaskClaimedFromTheLiveState() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true; // as Hive 3.1: the probe's stale write is made, not refused
        Task first = new Task(metastore, 0, FaultInjector.NONE);
        assertEquals(Fencing.LOCKS, first.committer.start(Fencing.AUTO));
        first.committer.claim(List.of(EVENTS_0));
        first.feed(List.of(EVENTS_0), 0, 5);
        first.commit();

        String live = "db.hive_sink_state_conn_0";
        boolean[] claimed = {false};
        metastore.beforeConditionalWrite = written -> {
            if (!claimed[0]) { // task 1 claims events-0 from task 0 while task 0's new run probes
                claimed[0] = true;
                Table state = metastore.tables.get(live);
                TaskState before = StateParameters.decode(0, state).state();
                StateParameters.encode(new TaskState(before.owner(), Map.of(EVENTS_0,
                        new TaskState.PartitionState(5, false)), before.intent(), before.lastBatch()),
                        state.getParameters());
                bumpVersion(state);
            }
        };
        Task restarted = new Task(metastore, 0, FaultInjector.NONE);
        assertEquals(Fencing.LOCKS, restarted.committer.start(Fencing.AUTO));
        assertTrue(claimed[0]);
        assertFalse(StateParameters.decode(0, metastore.tables.get(live)).state().owns(EVENTS_0),
                "the claim made during the probe stands");
    }

    @Test
    void aMetastoreThatIgnoresCompareAndSetAndHasNoLocksIsRefusedWithTheFix() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true;
        metastore.locksWork = false;
        ConnectException e = assertThrows(ConnectException.class,
                () -> new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertTrue(e.getMessage().contains("does not check it") && e.getMessage().contains("schematool"),
                e.getMessage());
        ConnectException forced = assertThrows(ConnectException.class,
                () -> new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.COMPARE_AND_SET));
        assertTrue(forced.getMessage().contains("hive.metastore.fencing=auto or locks"), forced.getMessage());
    }

    @Test
    void aStateWrittenByAnotherTaskDuringTheProbeIsProbedAgainRatherThanJudgedBroken() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        int[] writes = {0};
        // a task taking partitions over writes this task's state between its stale and its current probe
        metastore.beforeConditionalWrite = stored -> {
            if (++writes[0] == 2) {
                bumpVersion(stored);
            }
        };
        assertEquals(Fencing.COMPARE_AND_SET, new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertEquals(0, metastore.lockCalls, "no fallback to locks");
    }

    @Test
    void aStateChangedDuringEveryProbeStopsTheStartWithTheLikelyCause() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        int[] writes = {0};
        metastore.beforeConditionalWrite = stored -> {
            if (++writes[0] % 2 == 0) {
                bumpVersion(stored);
            }
        };
        ConnectException e = assertThrows(ConnectException.class,
                () -> new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertTrue(e.getMessage().contains("another writer changed the task's state during each of "
                + FencingProbe.TRIES + " probes") && e.getMessage().contains("same name"), e.getMessage());
        assertEquals(0, metastore.lockCalls, "a race is not taken for a metastore that cannot check");
    }

    @Test
    void aStaleWriteThatFailsOnAMetastoreIgnoringCompareAndSetIsNotTakenForItsCheck() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true;
        metastore.failingConditionalWrites = 1; // the probe's stale write, refused by the metastore's own failure
        int[] conditionalWrites = {0};
        metastore.beforeConditionalWrite = stored -> conditionalWrites[0]++;
        assertEquals(Fencing.LOCKS, new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO),
                "probed again, the metastore took the stale expectation: it does not check");
        assertEquals(3, conditionalWrites[0], "a stale write that failed, the current one, a stale one written");
        assertTrue(metastore.lockCalls > 0);

        metastore.failingConditionalWrites = 1;
        ConnectException e = assertThrows(ConnectException.class,
                () -> new Task(metastore, 1, FaultInjector.NONE).committer.start(Fencing.COMPARE_AND_SET));
        assertTrue(e.getMessage().contains("does not check it"), e.getMessage());
    }

    /** The risk the second probe leaves: the metastore's own failure striking both stale writes and neither other. */
    @Test
    void twoFailedStaleWritesOnAMetastoreIgnoringCompareAndSetAreTakenForItsCheck() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true;
        int[] conditionalWrites = {0};
        metastore.beforeConditionalWrite = stored -> {
            if (++conditionalWrites[0] % 2 == 1) {
                metastore.failingConditionalWrites = 1; // each stale write
            }
        };
        assertEquals(Fencing.COMPARE_AND_SET,
                new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertEquals(4, conditionalWrites[0]);
    }

    @Test
    void aCheckInWordsOtherThanHivesIsTakenForACheckOnceASecondProbeAgrees() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        int[] conditionalWrites = {0};
        metastore.beforeConditionalWrite = stored -> conditionalWrites[0]++;
        assertEquals(Fencing.COMPARE_AND_SET,
                new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertEquals(2, conditionalWrites[0], "Hive's words settle it at the first probe: a stale and a current write");

        metastore.checkRefusal = "Conflict: parameter v changed";
        conditionalWrites[0] = 0;
        assertEquals(Fencing.COMPARE_AND_SET,
                new Task(metastore, 1, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertEquals(4, conditionalWrites[0], "other words take a second probe");
        assertEquals(0, metastore.lockCalls, "no fallback to locks");
    }

    /** Another writer's turn: the version moves on, as a task taking a partition over moves it. */
    private static void bumpVersion(Table stored) {
        String version = stored.getParameters().get(StateTables.VERSION);
        int colon = version.indexOf(':');
        long counter = Long.parseLong(colon < 0 ? version : version.substring(0, colon));
        stored.getParameters().put(StateTables.VERSION, (counter + 1) + ":conn-t1-other:1");
    }

    @Test
    void aMetastoreThatFailsEveryCurrentExpectationIsFencedByLocksOrRefusedWithItsAnswer() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.failingCurrentExpectations = Integer.MAX_VALUE;
        assertEquals(Fencing.LOCKS, new Task(metastore, 0, FaultInjector.NONE).committer.start(Fencing.AUTO));

        metastore.locksWork = false;
        ConnectException e = assertThrows(ConnectException.class,
                () -> new Task(metastore, 1, FaultInjector.NONE).committer.start(Fencing.AUTO));
        assertTrue(e.getMessage().contains("refuses alter_table with an expected parameter value even when the value "
                + "matches") && e.getMessage().contains("it failed with: injected: Cannot update parameter with JDO"),
                e.getMessage());
    }

    @Test
    void anExistingTableWithAnotherSchemaIsAClearError() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(ALL);
        task.feed(List.of(EVENTS_0), 0, 1);
        task.commit();

        Schema other = SchemaBuilder.struct().name("Event").field("id", Schema.STRING_SCHEMA)
                .field("kind", Schema.STRING_SCHEMA).build();
        task.buffer.add(new SinkRecord("events", 0, null, null, other,
                new Struct(other).put("id", "x").put("kind", "a"), 1), 0);
        ConnectException e = assertThrows(ConnectException.class, task::commit);
        assertTrue(e.getMessage().contains("incompatible with table db.events: column id is long in the table but "
                + "string in the records"), e.getMessage());
    }

    @Test
    void aTableChangedAfterItsBatchWasAdmittedIsAClearErrorAtCommit() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(ALL);
        task.feed(List.of(EVENTS_0), 0, 1);
        task.commit();
        task.feed(List.of(EVENTS_0), 1, 2);
        io.hivesink.batch.Batch admitted = task.buffer.drain();
        // another writer changes the table between the batch's admission and its commit, schema and column
        Table events = metastore.tables.get("db.events");
        events.getSd().getCols().get(0).setType("string");
        events.getParameters().computeIfPresent("avro.schema.literal",
                (key, literal) -> literal.replace("{\"name\":\"id\",\"type\":\"long\"}",
                        "{\"name\":\"id\",\"type\":\"string\"}"));
        assertTrue(events.getParameters().get("avro.schema.literal").contains("\"string\"}"),
                "the table's Avro schema names id a string now: " + events.getParameters());
        ConnectException e = assertThrows(ConnectException.class, () -> task.committer.commit(admitted));
        assertTrue(e.getMessage().contains("column id is string in the table but long in the records"),
                e.getMessage());
    }

    @Test
    void aBatchOfOnlyRejectedRecordsStillCommitsItsOffsets() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE, true);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(ALL);
        for (long offset = 0; offset < 3; offset++) {
            task.buffer.add(new SinkRecord("events", 0, null, null, null, null, offset), 0);
        }
        io.hivesink.batch.Batch batch = task.buffer.drain();
        assertEquals(3, batch.rejected().size());
        assertEquals(0, batch.groups().size());
        task.committer.commit(batch);
        assertEquals(Map.of(EVENTS_0, 3L), task.committer.committedOffsets());

        Task restarted = new Task(metastore, 0, FaultInjector.NONE, true);
        restarted.committer.start(Fencing.AUTO);
        assertEquals(Map.of(EVENTS_0, 3L), restarted.committer.claim(List.of(EVENTS_0)),
                "a restart does not read the rejected records again");
    }

    /**
     * A Parquet file is written in its table's columns as the commit finds the table: with each of the batch's record
     * schemas checked, a table whose schema was put back by hand between admission and commit is evolved again, and
     * no field of the records is left out of the files.
     */
    @Test
    void aParquetFileKeepsEveryFieldOfItsRecordsWhenTheTableWasChangedBeforeTheCommit() throws Exception {
        format = "parquet";
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(List.of(EVENTS_0));
        task.feed(List.of(EVENTS_0), 0, 2);
        Schema withNote = SchemaBuilder.struct().name("Event").version(2).field("id", Schema.INT64_SCHEMA)
                .field("kind", Schema.STRING_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
        task.buffer.add(new SinkRecord("events", 0, null, null, withNote, new Struct(withNote).put("id", 2L)
                .put("kind", "a").put("note", "n2"), 2), 0);
        var batch = task.buffer.drain();
        Table stored = metastore.tables.get("db.events");
        org.apache.avro.Schema evolved = new org.apache.avro.Schema.Parser().parse(
                stored.getParameters().get("avro.schema.literal"));
        org.apache.avro.Schema putBack = org.apache.avro.Schema.createRecord(evolved.getName(), null,
                evolved.getNamespace(), false, evolved.getFields().stream().filter(f -> !f.name().equals("note"))
                        .map(f -> new org.apache.avro.Schema.Field(f, f.schema())).toList());
        stored.getParameters().put("avro.schema.literal", putBack.toString());
        task.committer.commit(batch);

        List<String> notes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("warehouse/db.db/events/kind=a"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
                try (org.apache.parquet.hadoop.ParquetReader<org.apache.parquet.example.data.Group> reader =
                        org.apache.parquet.hadoop.ParquetReader.builder(
                                new org.apache.parquet.hadoop.example.GroupReadSupport(),
                                new org.apache.hadoop.fs.Path(file.toUri())).withConf(new Configuration()).build()) {
                    for (var row = reader.read(); row != null; row = reader.read()) {
                        notes.add(row.getType().containsField("note") && row.getFieldRepetitionCount("note") > 0
                                ? row.getString("note", 0) : null);
                    }
                }
            }
        }
        assertTrue(notes.contains("n2"), "the record's note is in its file: " + notes);
    }

    @Test
    void aRetriedBatchLandsEachFileOnce() throws Exception {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Task task = new Task(metastore, 0, FaultInjector.NONE);
        task.committer.start(Fencing.AUTO);
        task.committer.claim(ALL);
        task.feed(ALL, 0, 4);
        var batch = task.buffer.drain();
        metastore.failNextAddPartitions = true;
        assertThrows(RuntimeException.class, () -> task.committer.commit(batch));
        Path movedBeforeTheFailure = dir.resolve("warehouse/db.db/events/kind=a/part-" + batch.id() + "-00001.avro");
        byte[] firstTry = Files.readAllBytes(movedBeforeTheFailure);
        task.committer.commit(batch);
        assertTrue(java.util.Arrays.equals(firstTry, Files.readAllBytes(movedBeforeTheFailure)),
                "the retry finishes the durable intent instead of writing the batch again");
        assertEquals(expectedIds(List.of(EVENTS_0, EVENTS_1), 4), landedIds("events", metastore));
        assertEquals(12L, ledgerRows(metastore).stream().mapToLong(r -> (Long) r.get("record_count")).sum());
    }

    /** Ids of the records of these partitions with offsets 0 to end-1; each id encodes topic partition and offset. */
    private static List<Long> expectedIds(List<TopicPartition> partitions, long end) {
        List<Long> ids = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            for (long offset = 0; offset < end; offset++) {
                ids.add(id(tp, offset));
            }
        }
        return ids.stream().sorted().toList();
    }

    private static long id(TopicPartition tp, long offset) {
        return tp.partition() * 1_000_000L + offset;
    }

    /** Every id in the table's registered partitions, sorted: a record landed twice shows up twice. */
    private List<Long> landedIds(String table, InMemoryMetastore metastore) throws IOException {
        List<Long> ids = new ArrayList<>();
        for (Partition registered : metastore.partitions.getOrDefault("db." + table, Map.of()).values()) {
            Path partitionDir = Path.of(java.net.URI.create(registered.getSd().getLocation()));
            if (format.equals("parquet")) {
                ids.addAll(parquetIds(partitionDir));
                continue;
            }
            if (format.equals("orc")) {
                ids.addAll(orcIds(partitionDir));
                continue;
            }
            for (GenericRecord record : read(partitionDir)) {
                ids.add((Long) record.get("id"));
            }
        }
        return ids.stream().sorted().toList();
    }

    /** The ids in a partition's Parquet files, read by Parquet's own reader. */
    private static List<Long> parquetIds(Path partitionDir) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Path> parquet = files.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted()
                    .toList();
            assertFalse(parquet.isEmpty(), "a registered partition has data behind it: " + partitionDir);
            for (Path file : parquet) {
                try (org.apache.parquet.hadoop.ParquetReader<org.apache.parquet.example.data.Group> reader =
                        org.apache.parquet.hadoop.ParquetReader.builder(
                                new org.apache.parquet.hadoop.example.GroupReadSupport(),
                                new org.apache.hadoop.fs.Path(file.toUri())).withConf(new Configuration()).build()) {
                    for (var row = reader.read(); row != null; row = reader.read()) {
                        ids.add(row.getLong("id", 0));
                    }
                }
            }
        }
        return ids;
    }

    /** The ids in a partition's ORC files, read by ORC's own reader. */
    private static List<Long> orcIds(Path partitionDir) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Path> orcFiles = files.filter(p -> p.getFileName().toString().endsWith(".orc")).sorted().toList();
            assertFalse(orcFiles.isEmpty(), "a registered partition has data behind it: " + partitionDir);
            for (Path file : orcFiles) {
                try (org.apache.orc.Reader reader = org.apache.orc.OrcFile.createReader(
                        new org.apache.hadoop.fs.Path(file.toUri()), org.apache.orc.OrcFile.readerOptions(
                                new Configuration()));
                        org.apache.orc.RecordReader rows = reader.rows()) {
                    var batch = reader.getSchema().createRowBatch();
                    int id = reader.getSchema().getFieldNames().indexOf("id");
                    while (rows.nextBatch(batch)) {
                        var column = (org.apache.orc.storage.ql.exec.vector.LongColumnVector) batch.cols[id];
                        for (int row = 0; row < batch.size; row++) {
                            ids.add(column.vector[column.isRepeating ? 0 : row]);
                        }
                    }
                }
            }
        }
        return ids;
    }

    private List<GenericRecord> ledgerRows(InMemoryMetastore metastore) throws IOException {
        List<GenericRecord> rows = new ArrayList<>();
        for (String partition : metastore.partitionNames("db", "hive_sink_ledger")) {
            rows.addAll(read(dir.resolve("warehouse/db.db/hive_sink_ledger/" + partition)));
        }
        return rows;
    }

    private static List<GenericRecord> read(Path partitionDir) throws IOException {
        List<GenericRecord> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Path> avro = files.filter(p -> p.getFileName().toString().endsWith(".avro")).sorted().toList();
            assertFalse(avro.isEmpty(), "a registered partition has data behind it: " + partitionDir);
            for (Path file : avro) {
                try (DataFileReader<GenericRecord> reader =
                        new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
                    reader.forEach(records::add);
                }
            }
        }
        return records;
    }

    private List<Path> stagedFiles() throws IOException {
        Path staging = dir.resolve("staging");
        if (!Files.exists(staging)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(staging)) {
            return files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".crc"))
                    .toList();
        }
    }

    static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("simulated crash");
        }
    }

    private static final AtomicLong INSTANCES = new AtomicLong();

    private static FileSystem localFileSystem() {
        try {
            return FileSystem.getLocal(new Configuration());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A task's properties: its tables in {@code db}, partitioned by kind, under {@code dir}. */
    static Map<String, String> props(Path dir, int taskId) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "conn");
        props.put("hive-sink.task.id", Integer.toString(taskId));
        props.put("fs.url", "file:///");
        props.put("warehouse.dir", dir.resolve("warehouse").toString());
        props.put("staging.dir", dir.resolve("staging").toString());
        props.put("hive.metastore.uris", "thrift://metastore.invalid:9083");
        props.put("hive.database", "db");
        props.put("state.database", "db");
        props.put("partition.fields", "kind");
        return props;
    }

    /** One task instance: its buffer and committer, on the shared directory and metastore. */
    private final class Task {
        final BatchBuffer buffer;
        final ExactlyOnceCommitter committer;

        Task(InMemoryMetastore metastore, int taskId, FaultInjector faults) {
            this(metastore, taskId, faults, false);
        }

        Task(InMemoryMetastore metastore, int taskId, FaultInjector faults, boolean rejectBadRecords) {
            this(metastore, taskId, faults, rejectBadRecords, localFileSystem());
        }

        Task(InMemoryMetastore metastore, int taskId, FaultInjector faults, boolean rejectBadRecords,
                FileSystem fs) {
            Map<String, String> props = props(dir, taskId);
            props.put("format", format);
            props.put("avro.codec", "deflate");
            props.put("avro.sync.interval.bytes", "1024");
            props.put("writer.threads", "2");
            if (rejectBadRecords) {
                props.put("errors.tolerance", "all");
            }
            // a fixed clock per instance, and another for each: instance ids (and so batch ids) never collide
            long startedAt = 1_700_000_000_000L + INSTANCES.incrementAndGet();
            TaskParts parts = TaskParts.build(props, fs, metastore, ForkJoinPool.commonPool(), faults,
                    () -> startedAt);
            buffer = parts.buffer();
            committer = parts.committer();
        }

        /** Records of offsets [from, to) of each partition, interleaved, kinds a and b alternating. */
        void feed(List<TopicPartition> partitions, long from, long to) {
            for (long offset = from; offset < to; offset++) {
                for (TopicPartition tp : partitions) {
                    Struct value = new Struct(EVENT).put("id", id(tp, offset)).put("kind", offset % 2 == 0 ? "a" : "b");
                    buffer.add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT, value, offset,
                            1_000L + offset, org.apache.kafka.common.record.TimestampType.CREATE_TIME), 0);
                }
            }
        }

        CommitSummary commit() {
            return committer.commit(buffer.drain());
        }
    }
}
