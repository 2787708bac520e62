package io.hivesink.it.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.LockBound;
import io.hivesink.commit.PartitionsTakenException;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskRun;
import io.hivesink.config.TableConfig;
import io.hivesink.metastore.ConditionalAlter;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metastore.MetastoreServer;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.commit.CommitRig;
import io.hivesink.stack.commit.RigStack;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.hive.MetastoreTableReader;
import io.hivesink.table.PartitionSpec;

/**
 * The commit protocol on a real metastore of one release (a stock server in a child JVM) and HDFS: tables created
 * and partitions added, a compatible schema change applied with CASCADE, the ledger, a crash in the middle of a
 * commit rolled forward, a zombie refused, under the fencing the connector picks for that release. Rows are read
 * back through that metastore ({@link MetastoreTableReader}). One subclass per release.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class MetastoreCompatibility {

    static final String DATABASE = "compat";

    /** Hive's predicate pushdown into ORC and Parquet readers (Spark's is on by default and takes it as a no-op). */
    private static final String PUSH_DOWN_IN_HIVE = "set hive.optimize.index.filter=true";

    private RigStack stack;
    private ThriftMetastore metastore;
    private CommitRig rig;
    private MetastoreTableReader reader;
    private Path work;

    private final MetastoreRelease release;
    private final Map<String, String> metastoreSettings;
    private final Fencing expectedFencing;
    private final String expectedRelease;

    /**
     * @param metastoreSettings what the metastore starts with, e.g. its full schema for the lock API
     * @param expectedFencing   what {@link Fencing#AUTO} must settle on; the other tests ask for it directly, as a
     *                          user who knows the metastore would, so that each task start is not probed again
     *                          (a probe that ends in a refused compare-and-set takes the metastore ~20 s of retries)
     * @param expectedRelease   what the server must say it is
     */
    MetastoreCompatibility(MetastoreRelease release, Map<String, String> metastoreSettings, Fencing expectedFencing,
            String expectedRelease) {
        this.release = release;
        this.metastoreSettings = metastoreSettings;
        this.expectedFencing = expectedFencing;
        this.expectedRelease = expectedRelease;
    }

    MetastoreRelease release() {
        return release;
    }

    /**
     * A query engine that reads through this metastore: Spark with the metastore client it pairs with this release,
     * or Hive itself. Each call runs the statements in one session and returns each one's rows.
     */
    interface QueryEngine {
        List<List<List<String>>> query(String... statements) throws Exception;

        /**
         * What the engine returns for {@code d <> 1} over an ORC file of [1.0, 1.0, NaN] (ids 1-3) and one of
         * [-0.0, 0.0] (ids 4, 5) with its predicate pushdown on: all of 3, 4 and 5, unless the reader is known to
         * lose the NaN (ORC keeps NaN out of a stripe's min and max, and only readers with ORC-629 distrust them).
         */
        default List<String> orcNanUnderPushdown() {
            return List.of("3", "4", "5");
        }
    }

    abstract QueryEngine queryEngine(String metastoreUri, Path workDir);

    /**
     * Where this metastore's tables are read by query engines instead, if not here: a second read through the same
     * engines and metastore release would spend the suite's time on nothing new (null: read here).
     */
    String readElsewhere() {
        return null;
    }


    /** The metastore the tables are in, as its clients reach it. */
    String metastoreUri() {
        return stack.metastoreProcess().uri();
    }

    /** Where this class's stack keeps its files. */
    Path workDir() {
        return work;
    }

    /** The HDFS the tables live on. */
    String hdfsUri() {
        return stack.hdfsUri();
    }

    @BeforeAll
    void start() throws Exception {
        work = Path.of("target", "it-stack", getClass().getSimpleName()).toAbsolutePath();
        Map<String, String> settings = new java.util.HashMap<>(metastoreSettings);
        // read back by the stale lock bound: 3 x 15 x 2 s, above its 60 s floor
        settings.put("hive.hmshandler.retry.attempts", "15");
        settings.put("hive.hmshandler.retry.interval", "2000ms");
        stack = RigStack.start(work, release, settings);
        metastore = stack.metastore();
        rig = stack.rig(DATABASE);
        reader = new MetastoreTableReader(metastore, stack.fileSystem());
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void theClientKnowsWhichReleaseAnswers() {
        MetastoreServer server = metastore.server();
        assertEquals(expectedRelease, server.release(), server.describe());
        assertEquals(stack.metastoreProcess().uri(), server.uri());
    }

    /** The stale bound of state locks comes from the metastore's own retry budget, which every release hands out. */
    @Test
    void theStaleLockBoundIsThreeOfTheMetastoresRetryBudgets() {
        assertEquals(90_000,
                LockBound.settle(metastore, 0, new TaskRun("bound-sink", "bound_sink", 0, "b-t0-x")).ms());
    }

    @Test
    void recordsLandEvolveWithCascadeAndTheLedgerRecordsEachBatch() {
        TopicPartition tp = new TopicPartition("land.events", 0);
        CommitRig.Task task = rig.task("land-sink", 0, FaultInjector.NONE, Fencing.AUTO);
        assertEquals(expectedFencing, task.fencing(), "fencing picked on " + release);
        task.committer().claim(List.of(tp));
        for (long offset = 0; offset < 6; offset++) {
            task.add(tp, offset, "b" + (offset % 2));
        }
        task.commit();
        for (long offset = 6; offset < 10; offset++) {
            task.add(tp, offset, "b" + (offset % 3), "note-" + offset); // a new field, and a new partition b2
        }
        task.commit();
        assertEquals(Map.of(tp, 10L), task.committer().committedOffsets());

        Table table = metastore.getTable(DATABASE, "land_events").orElseThrow();
        assertEquals(List.of("id", "note"), columnNames(table.getSd().getCols()).stream()
                .filter(c -> !c.equals("bucket")).toList(), "the table took the new column");
        assertEquals(List.of("bucket=b0", "bucket=b1", "bucket=b2"),
                metastore.partitionNames(DATABASE, "land_events").stream().sorted().toList());
        for (String bucket : List.of("b0", "b1")) {
            Partition old = metastore.getPartition(DATABASE, "land_events", List.of(bucket)).orElseThrow();
            assertTrue(columnNames(old.getSd().getCols()).contains("note"),
                    "CASCADE gave partition " + bucket + " the new column: " + old.getSd().getCols());
        }

        List<String> rows = reader.rows(DATABASE, "land_events").stream()
                .map(r -> r.get("id") + "/" + r.get("bucket") + "/" + r.get("note"))
                .sorted(Comparator.naturalOrder()).toList();
        assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b0/null", "5/b1/null",
                "6/b0/note-6", "7/b1/note-7", "8/b2/note-8", "9/b0/note-9"), rows);

        List<Map<String, Object>> ledger = reader.rows(DATABASE, "hive_sink_ledger").stream()
                .filter(r -> "land-sink".equals(String.valueOf(r.get("connector_name")))).toList();
        assertEquals(2, ledger.stream().map(r -> r.get("batch_id")).distinct().count(), "one ledger partition "
                + "per committed batch: " + ledger);
        assertEquals(10L, ledger.stream().mapToLong(r -> (Long) r.get("record_count")).sum());
    }

    /**
     * Trino reads an Avro table's columns from the metastore's {@code get_fields}, which a standalone metastore (3.1,
     * 4.0) refuses without a storage schema reader and Hive's SerDes: the task finds that out and says what to set.
     */
    @Test
    void theTaskFindsOutWhetherTheMetastoreTellsTrinoAnAvroTablesFields() {
        HiveTables tables = new HiveTables(metastore, DATABASE, rig.warehouse(), name -> TableConfig.of(Map.of(),
                null));
        tables.ensureTable("fields_probe", new org.apache.avro.Schema.Parser().parse("{\"type\": \"record\", "
                + "\"name\": \"R\", \"fields\": [{\"name\": \"id\", \"type\": \"long\"}]}"),
                new PartitionSpec(List.of(), List.of()));
        String refusal = tables.avroFieldsRefusal();
        if (servesAvroFields()) {
            assertEquals(null, refusal, release + " answers an Avro table's fields");
        } else {
            assertTrue(refusal != null && refusal.contains("Storage schema reading not supported"),
                    release + " refuses an Avro table's fields: " + refusal);
        }
    }

    /**
     * Where evolutions are fenced by locks (3.1), an evolution's {@code ALTER ... CASCADE} over many partitions
     * outlasts the silence after which a waiting evolver breaks its lock: the lock is heartbeated from a second
     * connection meanwhile, so the waiting task evolves after it, from its schema, and both keep their change.
     */
    @Test
    void aLongCascadeKeepsItsEvolutionLockAndBothEvolutionsKeepTheirChange() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(expectedFencing == Fencing.LOCKS,
                "evolutions on " + release + " are fenced by compare-and-set, not by locks");
        long staleMs = 100; // a waiting evolver breaks a lock silent for 10 x 100 ms, and waits 3 s at most
        MetastoreSettings settings = new MetastoreSettings(List.of(stack.metastoreProcess().uri()), false, "", "");
        org.apache.avro.Schema v1 = avro("{\"name\": \"id\", \"type\": \"long\"}");
        PartitionSpec byDay = new PartitionSpec(List.of("dt"), List.of("string"));
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (ThriftMetastore a = ThriftMetastore.connect(settings); ThriftMetastore b = ThriftMetastore.connect(
                settings)) {
            HiveTables taskA = lockedTables(a, "cascade-a", staleMs);
            HiveTables taskB = lockedTables(b, "cascade-b", staleMs);
            HiveTable table = taskA.ensureTable("cascade_events", v1, byDay);
            List<io.hivesink.table.PartitionValues> days = new ArrayList<>();
            for (int day = 0; day < 1_000; day++) {
                days.add(new io.hivesink.table.PartitionValues(List.of("dt"), List.of("d" + day)));
            }
            taskA.registerPartitions(table, days);
            String lockName = StateTables.evolutionLockName(DATABASE, "cascade_events");

            long started = System.nanoTime();
            java.util.concurrent.Future<Long> evolvingA = thread.submit(() -> {
                taskA.ensureTable("cascade_events", avro("{\"name\": \"id\", \"type\": \"long\"}, "
                        + "{\"name\": \"from_a\", \"type\": [\"null\", \"string\"], \"default\": null}"), byDay);
                return (System.nanoTime() - started) / 1_000_000;
            });
            while (metastore.locksOn(DATABASE, lockName).isEmpty() && !evolvingA.isDone()) {
                Thread.sleep(5);
            }
            org.apache.avro.Schema fromB = avro("{\"name\": \"id\", \"type\": \"long\"}, "
                    + "{\"name\": \"from_b\", \"type\": [\"null\", \"string\"], \"default\": null}");
            for (int attempt = 1; ; attempt++) { // as a task retries a batch whose evolution waited too long
                try {
                    taskB.ensureTable("cascade_events", fromB, byDay);
                    break;
                } catch (MetastoreException e) {
                    assertTrue(attempt < 20 && e.getMessage().contains("was not granted"), e.getMessage());
                }
            }
            long cascadeMs = evolvingA.get();
            assertTrue(cascadeMs > 10 * staleMs, "A's evolution outlasted the bound after which a silent lock is "
                    + "broken (else this test proves nothing): " + cascadeMs + " ms");
            Table stored = metastore.getTable(DATABASE, "cascade_events").orElseThrow();
            assertEquals(java.util.Set.of("id", "from_a", "from_b"), java.util.Set.copyOf(columnNames(
                    stored.getSd().getCols())), "both evolutions kept their column; A's took " + cascadeMs + " ms");
        } finally {
            thread.shutdownNow();
        }
    }

    private HiveTables lockedTables(ThriftMetastore connection, String instance, long staleMs) {
        HiveTables tables = new HiveTables(connection, DATABASE, rig.warehouse(), name -> TableConfig.of(Map.of(),
                null));
        tables.evolveUnderLocks(new StateTables(connection, DATABASE, new StateTables.Deployment("cascade-sink",
                "cascade-sink", DATABASE), rig.warehouse() + "/state", instance, staleMs).tableGuard());
        return tables;
    }

    private static org.apache.avro.Schema avro(String fields) {
        return new org.apache.avro.Schema.Parser().parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": ["
                + fields + "]}");
    }

    /**
     * Whether this metastore, as started here, answers {@code get_fields} for an Avro table: 2.3.10 ({@code
     * hive-metastore}) and this project's 4.0.1 child (HiveServer2's classpath) carry Hive's SerDes.
     */
    boolean servesAvroFields() {
        return true;
    }

    /**
     * The start-up probe takes a refused stale expectation for the metastore's check only when the refusal is in
     * Hive's words (else it probes again): every release that checks must answer in them, and 3.1 must not check.
     */
    @Test
    void aStaleExpectationIsRefusedInTheWordsOfHivesCheckByEveryReleaseThatChecks() {
        TopicPartition tp = new TopicPartition("words.events", 0);
        CommitRig.Task task = rig.task("words-sink", 0, FaultInjector.NONE, expectedFencing);
        task.committer().claim(List.of(tp));
        add(task, tp, 0, 1);
        task.commit();
        String key = "hive_sink_it_version";
        Table table = metastore.getTable(DATABASE, "words_events").orElseThrow();
        table.getParameters().put(key, "1");
        metastore.alterTable(table);

        Table next = metastore.getTable(DATABASE, "words_events").orElseThrow();
        next.getParameters().put(key, "2");
        ConditionalAlter stale = metastore.alterTableIf(next, key, "0");
        String stored = metastore.getTable(DATABASE, "words_events").orElseThrow().getParameters().get(key);
        if (release == MetastoreRelease.HIVE_3_1) {
            assertEquals(ConditionalAlter.Outcome.WRITTEN, stale.outcome(), "3.1 ignores the expectation");
            assertEquals("2", stored);
        } else {
            assertEquals(ConditionalAlter.Outcome.REFUSED_BY_CHECK, stale.outcome(), String.valueOf(stale.answer()));
            assertTrue(stale.answer().contains(ConditionalAlter.CHECK_REFUSAL), stale.answer());
            assertEquals("1", stored, "not written");
        }
    }

    /**
     * Last, so that the engine also reads what the other tests landed: the rolled-forward batch and the tables a
     * zombie was refused on, each record once.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void aQueryEngineReadsTypesPartitionsAndTheEvolvedSchemaThroughThisMetastore() throws Exception {
        Assumptions.assumeTrue(readElsewhere() == null, () -> "Not read here: " + readElsewhere());
        TopicPartition tp = new TopicPartition("read.events", 0);
        CommitRig.Task task = rig.task("read-sink", 0, FaultInjector.NONE, expectedFencing);
        task.committer().claim(List.of(tp));
        add(task, tp, 0, 4);
        task.commit();
        for (long offset = 4; offset < 7; offset++) {
            task.add(tp, offset, "b" + (offset % 3), "note-" + offset);
        }
        task.commit();

        ColumnarTables.land(rig, "parquet", expectedFencing);
        ColumnarTables.land(rig, "orc", expectedFencing);

        QueryEngine engine = queryEngine(stack.metastoreProcess().uri(), work.resolve("reader"));
        List<List<List<String>>> results = engine.query(
                "select id, bucket, note from " + DATABASE + ".read_events",
                "show partitions " + DATABASE + ".read_events",
                "describe " + DATABASE + ".read_events",
                "select count(distinct batch_id), sum(record_count) from " + DATABASE + ".hive_sink_ledger "
                        + "where connector_name = 'read-sink'",
                "select id from " + DATABASE + ".roll_events",
                "select id from " + DATABASE + ".zombie_events",
                "select id, bucket, note from " + DATABASE + ".parquet_events",
                "select " + ColumnarTables.TYPES_COLUMNS + " from " + DATABASE + ".parquet_types order by id",
                "select id, bucket, note from " + DATABASE + ".orc_events",
                "select " + ColumnarTables.TYPES_COLUMNS + " from " + DATABASE + ".orc_types order by id",
                PUSH_DOWN_IN_HIVE,
                "select id from " + DATABASE + ".parquet_floats where d <> 1",
                "select id from " + DATABASE + ".parquet_floats where f <> 1",
                "select id from " + DATABASE + ".parquet_floats where d = 0",
                "select id from " + DATABASE + ".orc_floats where d <> 1",
                "select id from " + DATABASE + ".orc_floats where f <> 1",
                "select id from " + DATABASE + ".orc_floats where d = 0",
                "set hive.optimize.index.filter=false",
                "select id from " + DATABASE + ".orc_floats where d <> 1");
        assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b1/note-4", "5/b2/note-5",
                "6/b0/note-6"), results.get(0).stream().map(r -> r.get(0) + "/" + r.get(1) + "/" + r.get(2))
                .sorted().toList(), "old rows read through the evolved schema");
        assertEquals(List.of("bucket=b0", "bucket=b1", "bucket=b2"),
                results.get(1).stream().map(r -> r.get(0)).sorted().toList());
        Map<String, String> types = new LinkedHashMap<>();
        for (List<String> row : results.get(2)) {
            if (row.get(0) != null && row.size() > 1 && row.get(1) != null && !row.get(0).strip().isEmpty()
                    && !row.get(0).startsWith("#")) {
                types.putIfAbsent(row.get(0).strip(), row.get(1).strip());
            }
        }
        assertEquals(Map.of("id", "bigint", "note", "string", "bucket", "string"), types);
        assertEquals(List.of(List.of("2", "7")), results.get(3), "the ledger: two batches, seven records");
        assertEquals(List.of("0", "1", "2", "3", "4", "5"), sortedIds(results.get(4)),
                "the batch rolled forward after a crash, each record once, as the engine reads it");
        assertEquals(List.of("0", "0", "1", "1", "2", "2", "3", "3", "4", "4", "5", "5", "6", "6", "7", "8"),
                sortedIds(results.get(5)), "partition 0: 0-8, partition 1: 0-6, nothing of the zombie's refused "
                        + "batch, as the engine reads it");
        assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b1/note-4", "5/b2/note-5",
                "6/b0/note-6"), results.get(6).stream().map(r -> r.get(0) + "/" + r.get(1) + "/" + r.get(2))
                .sorted().toList(), "a Parquet table's old files read through its evolved schema");
        assertEquals(ColumnarTables.TYPES_EXPECTED, results.get(7), "every type of a Parquet table, value by value");
        assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b1/note-4", "5/b2/note-5",
                "6/b0/note-6"), results.get(8).stream().map(r -> r.get(0) + "/" + r.get(1) + "/" + r.get(2))
                .sorted().toList(), "an ORC table's old files read through its evolved schema");
        assertEquals(ColumnarTables.TYPES_EXPECTED, results.get(9), "every type of an ORC table, value by value");
        for (int format = 0; format < 2; format++) {
            String table = format == 0 ? "parquet_floats" : "orc_floats";
            List<String> nan = format == 0 ? List.of("3", "4", "5") : engine.orcNanUnderPushdown();
            int first = 11 + 3 * format;
            assertEquals(nan, sortedIds(results.get(first)), table + ": d <> 1 over a file of [1.0, 1.0, NaN] "
                    + "returns the NaN, pushed down (min and max without it say 1.0)");
            assertEquals(nan, sortedIds(results.get(first + 1)), table + ": f <> 1, the same");
            assertEquals(List.of("4", "5"), sortedIds(results.get(first + 2)), table + ": d = 0 returns -0.0 and 0.0 "
                    + "pushed down (ORC's statistics and Parquet's record filter order -0.0 below 0.0)");
        }
        assertEquals(List.of("3", "4", "5"), sortedIds(results.get(18)), "orc_floats: d <> 1, not pushed down");
    }

    @Test
    void aBatchInterruptedAfterItsIntentIsRolledForwardOnRestart() {
        TopicPartition tp = new TopicPartition("roll.events", 0);
        CommitRig.Task crashing = rig.task("roll-sink", 0, point -> {
            if (point == FaultPoint.HALF_MOVED) {
                throw new IllegalStateException("simulated crash");
            }
        }, expectedFencing);
        crashing.committer().claim(List.of(tp));
        for (long offset = 0; offset < 6; offset++) {
            crashing.add(tp, offset, "b" + (offset % 2));
        }
        assertThrows(IllegalStateException.class, crashing::commit);

        CommitRig.Task restarted = rig.task("roll-sink", 0, FaultInjector.NONE, expectedFencing);
        assertEquals(Map.of(tp, 6L), restarted.committer().claim(List.of(tp)));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), ids("roll_events"));
    }

    @Test
    void aZombieCannotCommitAfterAnotherTaskClaimedItsPartition() {
        TopicPartition p0 = new TopicPartition("zombie.events", 0);
        TopicPartition p1 = new TopicPartition("zombie.events", 1);
        CommitRig.Task zombie = rig.task("zombie-sink", 0, FaultInjector.NONE, expectedFencing);
        zombie.committer().claim(List.of(p0, p1));
        add(zombie, p0, 0, 5);
        add(zombie, p1, 0, 5);
        zombie.commit();

        CommitRig.Task owner = rig.task("zombie-sink", 1, FaultInjector.NONE, expectedFencing);
        assertEquals(Map.of(p0, 5L), owner.committer().claim(List.of(p0)));
        add(zombie, p0, 5, 9);
        PartitionsTakenException e = assertThrows(PartitionsTakenException.class, zombie::commit);
        assertEquals(Set.of(p0), e.partitions(), e.getMessage());
        add(owner, p0, 5, 9);
        owner.commit();
        add(zombie, p1, 5, 7);
        zombie.commit(); // the partition it still owns
        assertEquals(Map.of(p0, 9L), owner.committer().committedOffsets());
        assertEquals(Map.of(p1, 7L), zombie.committer().committedOffsets());
        List<Long> expected = new ArrayList<>();
        for (long offset = 0; offset < 9; offset++) {
            expected.add(offset); // partition 0: offsets 0-8, by the zombie then the owner
        }
        for (long offset = 0; offset < 7; offset++) {
            expected.add(offset); // partition 1: offsets 0-6, all by the zombie
        }
        assertEquals(expected.stream().sorted().toList(), ids("zombie_events"),
                "each record once; the zombie's refused batch never landed");
    }

    private static void add(CommitRig.Task task, TopicPartition tp, long from, long to) {
        for (long offset = from; offset < to; offset++) {
            task.add(tp, offset, "b" + (offset % 2));
        }
    }

    static List<String> sortedIds(List<List<String>> rows) {
        return rows.stream().map(r -> Long.parseLong(r.get(0))).sorted().map(String::valueOf).toList();
    }

    private List<Long> ids(String table) {
        return reader.rows(DATABASE, table).stream().map(r -> (Long) Objects.requireNonNull(r.get("id")))
                .sorted().toList();
    }

    private static List<String> columnNames(List<FieldSchema> columns) {
        return columns.stream().map(FieldSchema::getName).toList();
    }
}
