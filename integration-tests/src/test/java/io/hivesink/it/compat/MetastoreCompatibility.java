package io.hivesink.it.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.metastore.ConditionalAlter;
import io.hivesink.metastore.MetastoreServer;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.commit.CommitRig;
import io.hivesink.stack.commit.RigStack;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.hive.MetastoreTableReader;

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
    }

    abstract QueryEngine queryEngine(String metastoreUri, Path workDir);

    /**
     * What the query engine returns for {@code d <> 1} over an ORC file of [1.0, 1.0, NaN] (ids 1-3) and one of
     * [-0.0, 0.0] (ids 4, 5) with its predicate pushdown on: all of 3, 4 and 5, unless the reader is known to lose
     * the NaN (ORC keeps NaN out of a stripe's min and max, and only readers with ORC-629 know to distrust them).
     */
    List<String> orcNanUnderPushdown() {
        return List.of("3", "4", "5");
    }

    /** The HDFS the tables live on. */
    String hdfsUri() {
        return stack.hdfsUri();
    }

    @BeforeAll
    void start() throws Exception {
        work = Path.of("target", "it-stack", getClass().getSimpleName()).toAbsolutePath();
        stack = RigStack.start(work, release, metastoreSettings);
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
    @Order(Integer.MAX_VALUE)
    void aQueryEngineReadsTypesPartitionsAndTheEvolvedSchemaThroughThisMetastore() throws Exception {
        TopicPartition tp = new TopicPartition("read.events", 0);
        CommitRig.Task task = rig.task("read-sink", 0, FaultInjector.NONE, expectedFencing);
        task.committer().claim(List.of(tp));
        add(task, tp, 0, 4);
        task.commit();
        for (long offset = 4; offset < 7; offset++) {
            task.add(tp, offset, "b" + (offset % 3), "note-" + offset);
        }
        task.commit();

        landColumnar("parquet");
        landColumnar("orc");

        List<List<List<String>>> results = queryEngine(stack.metastoreProcess().uri(), work.resolve("reader")).query(
                "select id, bucket, note from " + DATABASE + ".read_events",
                "show partitions " + DATABASE + ".read_events",
                "describe " + DATABASE + ".read_events",
                "select count(distinct batch_id), sum(record_count) from " + DATABASE + ".hive_sink_ledger "
                        + "where connector_name = 'read-sink'",
                "select id from " + DATABASE + ".roll_events",
                "select id from " + DATABASE + ".zombie_events",
                "select id, bucket, note from " + DATABASE + ".parquet_events",
                "select " + COLUMNAR_TYPES_COLUMNS + " from " + DATABASE + ".parquet_types order by id",
                "select id, bucket, note from " + DATABASE + ".orc_events",
                "select " + COLUMNAR_TYPES_COLUMNS + " from " + DATABASE + ".orc_types order by id",
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
        assertEquals(COLUMNAR_TYPES_EXPECTED, results.get(7), "every type of a Parquet table, value by value");
        assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b1/note-4", "5/b2/note-5",
                "6/b0/note-6"), results.get(8).stream().map(r -> r.get(0) + "/" + r.get(1) + "/" + r.get(2))
                .sorted().toList(), "an ORC table's old files read through its evolved schema");
        assertEquals(COLUMNAR_TYPES_EXPECTED, results.get(9), "every type of an ORC table, value by value");
        for (int format = 0; format < 2; format++) {
            String table = format == 0 ? "parquet_floats" : "orc_floats";
            List<String> nan = format == 0 ? List.of("3", "4", "5") : orcNanUnderPushdown();
            int first = 11 + 3 * format;
            assertEquals(nan, sortedIds(results.get(first)), table + ": d <> 1 over a file of [1.0, 1.0, NaN] "
                    + "returns the NaN, pushed down (min and max without it say 1.0)");
            assertEquals(nan, sortedIds(results.get(first + 1)), table + ": f <> 1, the same");
            assertEquals(List.of("4", "5"), sortedIds(results.get(first + 2)), table + ": d = 0 returns -0.0 and 0.0 "
                    + "pushed down (ORC's statistics and Parquet's record filter order -0.0 below 0.0)");
        }
        assertEquals(List.of("3", "4", "5"), sortedIds(results.get(18)), "orc_floats: d <> 1, not pushed down");
    }

    /**
     * Every column type a Parquet or ORC table can have, with nulls and nested structs whose fields are in camelCase
     * at two depths (Hive reads an ORC file's struct fields by the table's names, case-sensitively). Each format's
     * own reader checks empty arrays and null map values ({@code ParallelParquetWriterTest},
     * {@code ParallelOrcWriterTest}); Hive 4.0.1 reads an empty array as NULL and a null int map value as 0 from
     * any Parquet file, so they are not compared here.
     */
    private static final Schema TYPES = SchemaBuilder.struct().name("Types")
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .field("i8", Schema.INT8_SCHEMA)
            .field("i16", Schema.INT16_SCHEMA)
            .field("i32", Schema.INT32_SCHEMA)
            .field("f32", Schema.FLOAT32_SCHEMA)
            .field("f64", Schema.FLOAT64_SCHEMA)
            .field("flag", Schema.BOOLEAN_SCHEMA)
            .field("s", Schema.OPTIONAL_STRING_SCHEMA)
            .field("b", Schema.BYTES_SCHEMA)
            .field("amount", Decimal.schema(2))
            .field("d", org.apache.kafka.connect.data.Date.SCHEMA)
            .field("ts", Timestamp.builder().optional().build())
            .field("arr", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build())
            .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).build())
            .field("st", SchemaBuilder.struct().name("Inner")
                    .field("x", Schema.INT32_SCHEMA)
                    .field("y", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("userId", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("Deep", SchemaBuilder.struct().name("Deep")
                            .field("deepName", Schema.INT32_SCHEMA).optional().build())
                    .optional().build())
            .build();

    private static final String COLUMNAR_TYPES_COLUMNS = "cast(id as string), bucket, cast(i8 as string), "
            + "cast(i16 as string), cast(i32 as string), cast(f32 as string), cast(f64 as string), "
            + "if(flag, 'yes', 'no'), s, hex(b), cast(amount as string), cast(d as string), cast(ts as string), "
            + "cast(size(arr) as string), arr[0], arr[1], arr[2], cast(m['k1'] as string), cast(size(m) as string), "
            + "cast(st.x as string), st.y, st.userId, cast(st.Deep.deepName as string)";

    private static final List<List<String>> COLUMNAR_TYPES_EXPECTED = Arrays.asList(
            Arrays.asList("1", "b1", "-8", "-1600", "32", "1.5", "-2.25", "yes", "größe 😀", "00017F80FF",
                    "-12345.67", "2026-11-26", "2026-11-26 12:34:56.789", "3", "a", null, "c", "7", "2", "5", "y", "u1",
                    "9"),
            Arrays.asList("2", "b0", "127", "32767", "2147483647", "0.0", "1.0E100", "no", null, "",
                    "0.01", "1969-12-31", null, "3", "x", "y", "z", "9", "1", null, null, null, null));

    /** The two tables of a columnar format the query engine reads: evolved events, and every type. */
    private void landColumnar(String format) {
        TopicPartition events = new TopicPartition(format + ".events", 0);
        TopicPartition types = new TopicPartition(format + ".types", 0);
        CommitRig.Task task = rig.task(format + "-sink", 0, FaultInjector.NONE, expectedFencing,
                Map.of("format", format));
        task.committer().claim(List.of(events, types));
        add(task, events, 0, 4);
        Schema st = TYPES.field("st").schema();
        Struct inner = new Struct(st).put("x", 5).put("y", "y").put("userId", "u1")
                .put("Deep", new Struct(st.field("Deep").schema()).put("deepName", 9)); // camelCase at two depths
        Map<String, Integer> twoKeys = new LinkedHashMap<>();
        twoKeys.put("k1", 7);
        twoKeys.put("k2", null);
        task.add(new SinkRecord(types.topic(), 0, null, null, TYPES,
                new Struct(TYPES).put("id", 1L).put("bucket", "b1").put("i8", (byte) -8)
                        .put("i16", (short) -1600).put("i32", 32).put("f32", 1.5f).put("f64", -2.25)
                        .put("flag", true).put("s", "größe 😀").put("b", new byte[] {0, 1, 127, -128, -1})
                        .put("amount", new BigDecimal("-12345.67"))
                        .put("d", java.util.Date.from(Instant.parse("2026-11-26T00:00:00Z")))
                        .put("ts", java.util.Date.from(Instant.parse("2026-11-26T12:34:56.789Z")))
                        .put("arr", Arrays.asList("a", null, "c")).put("m", twoKeys).put("st", inner),
                0));
        task.add(new SinkRecord(types.topic(), 0, null, null, TYPES,
                new Struct(TYPES).put("id", 2L).put("bucket", "b0")
                        .put("i8", (byte) 127).put("i16", (short) 32767).put("i32", Integer.MAX_VALUE)
                        .put("f32", 0.0f).put("f64", 1e100).put("flag", false).put("b", new byte[0])
                        .put("amount", new BigDecimal("0.01"))
                        .put("d", java.util.Date.from(Instant.parse("1969-12-31T00:00:00Z")))
                        .put("arr", List.of("x", "y", "z")).put("m", Map.of("k1", 9)),
                1));
        task.commit();
        for (long offset = 4; offset < 7; offset++) {
            task.add(events, offset, "b" + (offset % 3), "note-" + offset);
        }
        task.commit();
        landFloats(format);
    }

    private static final Schema FLOATS = SchemaBuilder.struct().name("Floats")
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .field("d", Schema.FLOAT64_SCHEMA)
            .field("f", Schema.FLOAT32_SCHEMA)
            .build();

    /**
     * A file of [1.0, 1.0, NaN] (partition b0) and one of [-0.0, 0.0] (b1), in one batch: a reader that trusts a
     * min and max without the NaN skips the first file for {@code d <> 1}.
     */
    private void landFloats(String format) {
        TopicPartition floats = new TopicPartition(format + ".floats", 0);
        CommitRig.Task task = rig.task(format + "-floats-sink", 0, FaultInjector.NONE, expectedFencing,
                Map.of("format", format));
        task.committer().claim(List.of(floats));
        double[] values = {1.0, 1.0, Double.NaN, -0.0, 0.0};
        for (int i = 0; i < values.length; i++) {
            task.add(new SinkRecord(floats.topic(), 0, null, null, FLOATS, new Struct(FLOATS).put("id", i + 1L)
                    .put("bucket", i < 3 ? "b0" : "b1").put("d", values[i]).put("f", (float) values[i]), i));
        }
        task.commit();
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
        TaskFencedException e = assertThrows(TaskFencedException.class, zombie::commit);
        assertTrue(e.getMessage().contains("another task claimed " + p0), e.getMessage());
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

    private static List<String> sortedIds(List<List<String>> rows) {
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
