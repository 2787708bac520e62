package io.hivesink.metastore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.apache.avro.Schema;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

import io.hivesink.commit.StateTables;
import io.hivesink.config.TableConfig;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

class HiveTablesTest {

    /** Tables with the connector's default options. */
    static final Function<String, TableConfig> DEFAULTS = table -> TableConfig.of(Map.of(), null);
    static final PartitionSpec BY_DAY = new PartitionSpec(List.of("dt"), List.of("string"));

    static Schema schema(String fields) {
        return new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"orders\",\"namespace\":\"db\","
                + "\"fields\":[" + fields + "]}");
    }

    static final Schema V1 = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"int\"}");
    static final Schema V2 = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"long\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}");
    /** V2 and a further optional column. */
    static final Schema V3 = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"long\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
            + "{\"name\":\"extra\",\"type\":[\"null\",\"int\"],\"default\":null}");

    /** A table's configuration where only what the metastore uses matters. */
    static TableConfig options(String location, Map<String, String> properties, boolean evolve) {
        return options(location, properties, evolve, false);
    }

    static TableConfig options(String location, Map<String, String> properties, boolean evolve, boolean compaction) {
        return new TableConfig(List.of(), properties, evolve, "avro", "snappy", -1, "snappy", true, "snappy", 1_000_000,
                new io.hivesink.config.DoneConfig.Table(600_000L, 0L, true,
                        io.hivesink.config.DoneConfig.LatePolicy.LAND),
                new io.hivesink.config.CompactionConfig.Table(compaction, 1 << 27, 4), location);
    }

    @Test
    void aCompactedTablesPartitionsAreRegisteredBesideItsDirectoryAtGenerationZero() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", name -> options(
                name.equals("root") ? "file:/" : null, Map.of(), true, !name.equals("plain")));
        PartitionValues day = new PartitionValues(List.of("dt"), List.of("2026-11-29"));
        HiveTable orders = tables.ensureTable("orders", V1, BY_DAY);
        tables.registerPartitions(orders, List.of(day));
        assertEquals("file:/w/db.db/partitions_of_orders/dt=2026-11-29/0",
                metastore.partitionsByNames("db", "orders", List.of(day.path())).get(0).getSd().getLocation());
        assertEquals("file:/w/db.db/partitions_of_orders/dt=2026-11-29/0", orders.firstLocation(day.path()),
                "where the batch's files land before the partition exists");

        HiveTable plain = tables.ensureTable("plain", V1, BY_DAY);
        assertEquals("file:/w/db.db/plain/dt=2026-11-29", plain.firstLocation(day.path()));

        HiveTable root = tables.ensureTable("root", V1, BY_DAY);
        MetastoreException noParent = assertThrows(MetastoreException.class, () -> root.firstLocation(day.path()));
        assertTrue(noParent.getMessage().contains("table.root.location"), noParent.getMessage());
    }

    @Test
    void createsTheTableWhereAndHowTheOptionsSay() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", name -> options(
                name.equals("orders") ? "file:/elsewhere/orders" : null, Map.of("owner.team", "sales"), true));
        HiveTable orders = tables.ensureTable("orders", V1, BY_DAY);
        assertEquals("file:/elsewhere/orders", orders.location());
        Table stored = metastore.tables.get("db.orders");
        assertEquals("sales", stored.getParameters().get("owner.team"));
        assertEquals("TRUE", stored.getParameters().get("EXTERNAL"));
        assertEquals("file:/w/db.db/other", tables.ensureTable("other", V1, BY_DAY).location());
        assertSame(orders, tables.ensureTable("orders", V1, BY_DAY), "known schemas need no metastore call");
    }

    @Test
    void manyNewPartitionsAreRegisteredAHundredPerCallAndARetryAddsOnlyTheRest() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable orders = tables.ensureTable("orders", V1, BY_DAY);
        List<PartitionValues> days = new java.util.ArrayList<>();
        for (int day = 0; day < 250; day++) {
            days.add(new PartitionValues(List.of("dt"), List.of("d" + day)));
        }
        int before = metastore.addPartitionCalls;
        assertEquals(250, tables.registerPartitions(orders, days));
        assertEquals(3, metastore.addPartitionCalls - before, "100 + 100 + 50");
        assertEquals(250, metastore.partitionNames("db", "orders").size());

        List<PartitionValues> more = new java.util.ArrayList<>(days);
        for (int day = 250; day < 400; day++) {
            more.add(new PartitionValues(List.of("dt"), List.of("d" + day)));
        }
        metastore.failNextAddPartitions = true;
        HiveTables restarted = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable again = restarted.ensureTable("orders", V1, BY_DAY);
        assertThrows(MetastoreException.class, () -> restarted.registerPartitions(again, more));
        assertEquals(150, restarted.registerPartitions(again, more), "only the 150 new ones");
        assertEquals(400, metastore.partitionNames("db", "orders").size());
    }

    @Test
    void partitionLocationsAreReadAHundredNamesPerCall() {
        List<Integer> callSizes = new java.util.ArrayList<>();
        InMemoryMetastore metastore = new InMemoryMetastore() {
            @Override
            public synchronized List<org.apache.hadoop.hive.metastore.api.Partition> partitionsByNames(String db,
                    String table, List<String> names) {
                callSizes.add(names.size()); // Hive 4.0.1 on Derby fails a thousand names in one call
                return super.partitionsByNames(db, table, names);
            }
        };
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable orders = tables.ensureTable("orders", V1, BY_DAY);
        List<PartitionValues> days = new java.util.ArrayList<>();
        List<String> names = new java.util.ArrayList<>();
        for (int day = 0; day < 250; day++) {
            days.add(new PartitionValues(List.of("dt"), List.of("d" + day)));
            names.add("dt=d" + day);
        }
        tables.registerPartitions(orders, days.subList(0, 240));
        callSizes.clear();
        java.util.Map<String, String> locations = tables.locationsOf(orders, names);
        assertEquals(List.of(100, 100, 50), callSizes);
        assertEquals(240, locations.size(), "the 10 not registered have none");
        assertEquals("file:/w/db.db/orders/dt=d7", locations.get("dt=d7"));
    }

    @Test
    void aCompatibleSchemaEvolvesTheTableAndItsPartitions() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable v1 = tables.ensureTable("orders", V1, BY_DAY);
        tables.registerPartitions(v1, List.of(new PartitionValues(List.of("dt"), List.of("2026-11-21"))));

        HiveTable v2 = tables.ensureTable("orders", V2, BY_DAY);
        assertEquals(V2.getFields().size(), v2.avroSchema().getFields().size());
        Table stored = metastore.tables.get("db.orders");
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"), columns(stored.getSd().getCols()));
        Partition old = metastore.partitions.get("db.orders").values().iterator().next();
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"), columns(old.getSd().getCols()),
                "the old partition reads with the new columns");

        // an older producer's records still fit, without another change
        assertSame(v2, tables.ensureTable("orders", V1, BY_DAY));
    }

    /**
     * A task whose cached table is older than another task's evolution registers a new partition with the table's
     * columns as they are now: Hive reads a Parquet or ORC partition through its own columns, and the other task's
     * CASCADE reached only the partitions that existed then.
     */
    @Test
    void aNewPartitionTakesTheColumnsOfAnEvolutionAnotherTaskMadeSinceThisOneCachedTheTable() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable cached = taskA.ensureTable("orders", V1, BY_DAY);
        taskA.registerPartitions(cached, List.of(day("2026-11-21")));
        new HiveTables(metastore, "db", "file:/w", DEFAULTS).ensureTable("orders", V2, BY_DAY); // task B evolves

        assertEquals(1, taskA.registerPartitions(cached, List.of(day("2026-11-22"))));
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"),
                columns(metastore.getPartition("db", "orders", List.of("2026-11-22")).orElseThrow().getSd().getCols()));
    }

    /**
     * An evolution that commits after the registering task read the table's columns and before its partitions were
     * added (its CASCADE listed the partitions without them) is caught up with: the new partitions get its columns.
     */
    @Test
    void anEvolutionRacingARegistrationIsCaughtUpWith() {
        RacingMetastore metastore = new RacingMetastore();
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable cached = taskA.ensureTable("orders", V1, BY_DAY);
        metastore.evolveAtNextAdd(V2, BY_DAY);

        assertEquals(1, taskA.registerPartitions(cached, List.of(day("2026-11-22"))));
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"),
                columns(metastore.getPartition("db", "orders", List.of("2026-11-22")).orElseThrow().getSd().getCols()));
    }

    /**
     * A catch-up that failed (or a task that died before it) is done again by the batch's retry or roll-forward: the
     * partition, there already, is read and given the table's columns, kept as the metastore has it otherwise.
     */
    @Test
    void aCatchUpThatFailedIsDoneAgainByTheRetryOrTheRollForward() {
        RacingMetastore metastore = new RacingMetastore();
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable cached = taskA.ensureTable("orders", V1, BY_DAY);
        metastore.evolveAtNextAdd(V2, BY_DAY);
        metastore.failingAlters = 1;
        assertThrows(MetastoreException.class, () -> taskA.registerPartitions(cached, List.of(day("2026-11-22"))));
        Partition stale = metastore.getPartition("db", "orders", List.of("2026-11-22")).orElseThrow();
        assertEquals(List.of("id:bigint", "qty:int"), columns(stale.getSd().getCols()), "added, not caught up");

        assertEquals(0, taskA.registerPartitions(cached, List.of(day("2026-11-22")), true), "the retry adds none");
        Partition fixed = metastore.getPartition("db", "orders", List.of("2026-11-22")).orElseThrow();
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"), columns(fixed.getSd().getCols()));
        assertEquals(stale.getCreateTime(), fixed.getCreateTime(), "altered as the metastore has it");
        assertTrue(fixed.getCreateTime() > 0);

        // the same by another task rolling the batch forward
        metastore.evolveAtNextAdd(V3, BY_DAY);
        metastore.failingAlters = 1;
        HiveTables crashing = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable before = crashing.ensureTable("orders", V2, BY_DAY);
        assertThrows(MetastoreException.class, () -> crashing.registerPartitions(before,
                List.of(day("2026-11-23"))));
        HiveTables rolling = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        rolling.registerPartitions(rolling.existing("orders"), List.of(day("2026-11-23")), true);
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string", "extra:int"), columns(metastore.getPartition(
                "db", "orders", List.of("2026-11-23")).orElseThrow().getSd().getCols()));
    }

    /**
     * A registration whose answer was lost and which was sent again adds nothing the second time: the partition it
     * did add, with the columns from before an evolution that raced it, is read back and caught up all the same.
     */
    @Test
    void aPartitionAddedByACallWhoseAnswerWasLostIsCaughtUpToo() {
        RacingMetastore metastore = new RacingMetastore();
        metastore.resendAdds = true;
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable cached = taskA.ensureTable("orders", V1, BY_DAY);
        metastore.evolveAtNextAdd(V2, BY_DAY);

        taskA.registerPartitions(cached, List.of(day("2026-11-22")));
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"),
                columns(metastore.getPartition("db", "orders", List.of("2026-11-22")).orElseThrow().getSd().getCols()));
    }

    /** A second connection that cannot be had leaves the evolution lock released, not held until it is broken. */
    @Test
    void anEvolutionLockIsReleasedWhenItsHeartbeatCannotStart() {
        InMemoryMetastore metastore = new InMemoryMetastore() {
            @Override
            public LockHeartbeat keepLockAlive(long lockId, long everyMs) {
                throw new IllegalStateException("injected: no second connection");
            }
        };
        metastore.ignoreCompareAndSet = true;
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        tables.evolveUnderLocks(new StateTables(metastore, "hive_sink", new StateTables.Deployment("conn", "conn",
                "db"), "file:///s", "conn-t0-a", 1_000).tableGuard());
        tables.ensureTable("orders", V1, BY_DAY);
        assertThrows(IllegalStateException.class, () -> tables.ensureTable("orders", V2, BY_DAY));
        assertEquals(List.of(), metastore.locksOn("db", StateTables.evolutionLockName("db", "orders")));
    }

    /** A metastore that does not answer get_fields either way is asked again at the next table, and not reported. */
    @Test
    void anAvroFieldsProbeThatGotNoAnswerIsAskedAgain() {
        int[] failures = {1};
        InMemoryMetastore metastore = new InMemoryMetastore() {
            @Override
            public java.util.Optional<String> fieldsRefusal(String database, String table) {
                if (failures[0]-- > 0) {
                    throw new MetastoreException("injected: connection reset", null);
                }
                return super.fieldsRefusal(database, table);
            }
        };
        metastore.fieldsRefusal = "Storage schema reading not supported";
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        tables.ensureTable("orders", V1, BY_DAY);
        assertEquals(null, tables.avroFieldsRefusal(), "no answer is no refusal");
        tables.ensureTable("customers", V1, BY_DAY);
        assertEquals("Storage schema reading not supported", tables.avroFieldsRefusal());
    }

    /** An evolution that commits between the catch-up's read of the table and its alter is caught up with too. */
    @Test
    void anEvolutionDuringTheCatchUpIsCaughtUpWith() {
        RacingMetastore metastore = new RacingMetastore();
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        HiveTable cached = taskA.ensureTable("orders", V1, BY_DAY);
        metastore.evolveAtNextAdd(V2, BY_DAY);
        metastore.evolveAtNextAlter(V3, BY_DAY);
        taskA.registerPartitions(cached, List.of(day("2026-11-22")));
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string", "extra:int"), columns(metastore.getPartition(
                "db", "orders", List.of("2026-11-22")).orElseThrow().getSd().getCols()), "both evolutions");
    }

    private static PartitionValues day(String day) {
        return new PartitionValues(List.of("dt"), List.of(day));
    }

    @Test
    void incompatibleSchemasAndEvolutionTurnedOffAreRecordErrors() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        tables.ensureTable("orders", V1, BY_DAY);
        DataException incompatible = assertThrows(DataException.class, () -> tables.ensureTable("orders",
                schema("{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\"}"), BY_DAY));
        assertTrue(incompatible.getMessage().contains("column id is long in the table but string in the records"),
                incompatible.getMessage());

        HiveTables frozen = new HiveTables(metastore, "db", "file:/w",
                name -> options(null, Map.of(), false));
        DataException refused = assertThrows(DataException.class, () -> frozen.ensureTable("orders", V2, BY_DAY));
        assertTrue(refused.getMessage().contains("schema.evolution is none"), refused.getMessage());
        assertEquals(List.of("id:bigint", "qty:int"), columns(metastore.tables.get("db.orders").getSd().getCols()));
    }

    @Test
    void fieldsThatDifferOnlyByCaseAreRecordErrorsWithinASchemaAndAcrossVersionsAndTopics() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        // within one schema, as the passthrough sees a producer's Avro schema
        DataException within = assertThrows(DataException.class, () -> tables.ensureTable("raw",
                schema("{\"name\":\"Id\",\"type\":\"long\"},{\"name\":\"id\",\"type\":\"long\"}"), BY_DAY));
        assertTrue(within.getMessage().contains("fields 'Id' and 'id' of orders differ only by case"),
                within.getMessage());
        DataException nested = assertThrows(DataException.class, () -> tables.ensureTable("raw", schema(
                "{\"name\":\"customer\",\"type\":{\"type\":\"record\",\"name\":\"c\",\"fields\":["
                        + "{\"name\":\"Name\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}}"),
                BY_DAY));
        assertTrue(nested.getMessage().contains("of orders.customer differ only by case"), nested.getMessage());
        assertTrue(metastore.tables.get("db.raw") == null, "no table made");

        // across schema versions, or topics sharing a table: the table has id, a later schema brings Id
        tables.ensureTable("orders", V1, BY_DAY);
        DataException across = assertThrows(DataException.class, () -> tables.ensureTable("orders",
                schema("{\"name\":\"Id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"int\"}"), BY_DAY));
        assertTrue(across.getMessage().contains("field Id of the records and column id of the table differ only by "
                + "case"), across.getMessage());
        assertEquals(List.of("id:bigint", "qty:int"), columns(metastore.tables.get("db.orders").getSd().getCols()),
                "the table is not altered");
    }

    static final Schema WIDE = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"long\"}");
    static final Schema NOTED = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"int\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}");

    /**
     * A metastore on which, the first time {@code tables} reads "orders" once armed, another task's evolution of it
     * lands between that read and the write that follows it.
     */
    static Metastore racing(InMemoryMetastore metastore, Runnable otherTask, java.util.concurrent.atomic.AtomicBoolean
            armed) {
        return (Metastore) java.lang.reflect.Proxy.newProxyInstance(Metastore.class.getClassLoader(),
                new Class<?>[] {Metastore.class}, (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(metastore, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("getTable") && "orders".equals(args[1]) && armed.getAndSet(false)) {
                        otherTask.run();
                    }
                    return answer;
                });
    }

    @Test
    void twoTasksEvolvingOneTableAtOnceKeepBothChangesByCompareAndSet() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        assertBothChangesKept(metastore, new HiveTables(metastore, "db", "file:/w", DEFAULTS),
                racing -> new HiveTables(racing, "db", "file:/w", DEFAULTS));
    }

    @Test
    void twoTasksEvolvingOneTableAtOnceKeepBothChangesUnderLocks() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true; // as Hive 3.1: evolutions are made under the table's lock
        StateTables.Deployment deployment = new StateTables.Deployment("conn", "conn", "db");
        HiveTables taskA = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        taskA.evolveUnderLocks(new StateTables(metastore, "hive_sink", deployment, "file:///s", "conn-t0-a", 1_000)
                .tableGuard());
        assertBothChangesKept(metastore, taskA, racing -> {
            HiveTables taskB = new HiveTables(racing, "db", "file:/w", DEFAULTS);
            taskB.evolveUnderLocks(new StateTables(racing, "hive_sink", deployment, "file:///s", "conn-t1-b", 1_000)
                    .tableGuard());
            return taskB;
        });
        assertEquals(List.of(), metastore.locksOn("db", StateTables.evolutionLockName("db", "orders")),
                "the evolution lock, beside the table, released");
        assertEquals(List.of(), metastore.locksOn("db", "orders"), "and none taken on the data table");
    }

    /** Task B adds a column while task A widens one, A's change landing between B's read and B's write. */
    private static void assertBothChangesKept(InMemoryMetastore metastore, HiveTables taskA,
            java.util.function.Function<Metastore, HiveTables> taskBOn) {
        taskA.ensureTable("orders", V1, BY_DAY);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        HiveTables taskB = taskBOn.apply(racing(metastore, () -> taskA.ensureTable("orders", WIDE, BY_DAY), armed));
        taskB.ensureTable("orders", V1, BY_DAY);

        armed.set(true);
        HiveTable b = taskB.ensureTable("orders", NOTED, BY_DAY);
        assertEquals(List.of("id:bigint", "qty:bigint", "note:string"),
                columns(metastore.tables.get("db.orders").getSd().getCols()), "A's widening and B's new column");
        assertEquals(Schema.Type.LONG, b.avroSchema().getField("qty").schema().getType(), "B merged A's change");

        // A's cache says qty long without note: at its next commit it reads the table again
        taskA.refresh(List.of("orders"));
        assertEquals(3, taskA.ensureTable("orders", WIDE, BY_DAY).avroSchema().getFields().size());
    }

    @Test
    void anExistingTableThatTheConnectorCannotWriteIsAClearError() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        tables.ensureTable("orders", V1, BY_DAY);
        ConnectException otherPartitions = assertThrows(ConnectException.class, () -> new HiveTables(metastore, "db",
                "file:/w", DEFAULTS).ensureTable("orders", V1,
                        new PartitionSpec(List.of("region"), List.of("string"))));
        assertTrue(otherPartitions.getMessage().contains("is partitioned by [dt] but the connector's partitioner "
                + "gives [region]"), otherPartitions.getMessage());

        Table orc = metastore.tables.get("db.orders").deepCopy();
        orc.setTableName("orc_orders");
        orc.getParameters().remove("avro.schema.literal");
        orc.getSd().getSerdeInfo().setSerializationLib("org.apache.hadoop.hive.ql.io.orc.OrcSerde");
        metastore.tables.put("db.orc_orders", orc);
        ConnectException notAvro = assertThrows(ConnectException.class,
                () -> tables.ensureTable("orc_orders", V1, BY_DAY));
        assertTrue(notAvro.getMessage().contains("is not a table the connector made"), notAvro.getMessage());
    }

    @Test
    void aParquetTableIsMadeForParquetAndItsFormatIsFixed() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Function<String, TableConfig> parquet = table -> TableConfig.of(Map.of("format", "Parquet",
                "parquet.codec", "gzip"), null);
        new HiveTables(metastore, "db", "file:/w", parquet).ensureTable("orders", V1, BY_DAY);
        Table stored = metastore.tables.get("db.orders");
        assertEquals("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                stored.getSd().getSerdeInfo().getSerializationLib());
        assertEquals("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat", stored.getSd().getInputFormat());
        assertEquals("GZIP", stored.getParameters().get("parquet.compression"));
        assertEquals(List.of("id", "qty"), stored.getSd().getCols().stream().map(c -> c.getName()).toList());

        HiveTables asParquet = new HiveTables(metastore, "db", "file:/w", parquet);
        Schema withNote = schema("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"int\"},"
                + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}");
        assertEquals(3, asParquet.ensureTable("orders", withNote, BY_DAY).avroSchema().getFields().size(),
                "a Parquet table takes new columns as an Avro one");
        DataException widened = assertThrows(DataException.class, () -> asParquet.ensureTable("orders", V2, BY_DAY));
        assertTrue(widened.getMessage().contains("qty would widen from int to long, and a columnar (Parquet or ORC) "
                + "table's files keep the type"), widened.getMessage());
        DataException noColumns = assertThrows(DataException.class, () -> asParquet.ensureTable("empty",
                schema(""), BY_DAY));
        assertTrue(noColumns.getMessage().contains("needs a column besides the partition columns"),
                noColumns.getMessage());
        DataException emptyStruct = assertThrows(DataException.class, () -> asParquet.ensureTable("hollow",
                schema("{\"name\":\"e\",\"type\":{\"type\":\"record\",\"name\":\"E\",\"fields\":[]}}"),
                BY_DAY));
        assertTrue(emptyStruct.getMessage().contains("record without fields"), emptyStruct.getMessage());
        ConnectException asAvro = assertThrows(ConnectException.class,
                () -> new HiveTables(metastore, "db", "file:/w", DEFAULTS).ensureTable("orders", V1, BY_DAY));
        assertTrue(asAvro.getMessage().contains("holds parquet files, and the connector is set to write avro files")
                && asAvro.getMessage().contains("table.orders.format=parquet"), asAvro.getMessage());
    }

    @Test
    void anOrcTableIsMadeForOrcItsColumnsOnlyGrowAtTheEndAndItsFormatIsFixed() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Function<String, TableConfig> orc = table -> TableConfig.of(Map.of("format", "ORC", "orc.codec", "zlib"),
                null);
        HiveTables asOrc = new HiveTables(metastore, "db", "file:/w", orc);
        asOrc.ensureTable("orders", V1, BY_DAY);
        Table stored = metastore.tables.get("db.orders");
        assertEquals("org.apache.hadoop.hive.ql.io.orc.OrcSerde", stored.getSd().getSerdeInfo().getSerializationLib());
        assertEquals("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat", stored.getSd().getInputFormat());
        assertEquals("org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat", stored.getSd().getOutputFormat());
        assertEquals("ZLIB", stored.getParameters().get("orc.compress"));

        // a record with its fields in another order and a new one: the new column comes last, the others stay put
        Schema reordered = schema("{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"id\",\"type\":\"long\"}");
        assertEquals(List.of("id", "qty", "note"), asOrc.ensureTable("orders", reordered, BY_DAY).avroSchema()
                .getFields().stream().map(Schema.Field::name).toList());
        assertEquals(List.of("id", "qty", "note"), metastore.tables.get("db.orders").getSd().getCols().stream()
                .map(c -> c.getName()).toList());

        DataException widened = assertThrows(DataException.class, () -> asOrc.ensureTable("orders", V2, BY_DAY));
        assertTrue(widened.getMessage().contains("qty would widen from int to long"), widened.getMessage());

        // columns reordered by hand: positional readers would read the wrong ones, so the table is refused
        java.util.Collections.reverse(metastore.tables.get("db.orders").getSd().getCols());
        ConnectException byHand = assertThrows(ConnectException.class,
                () -> new HiveTables(metastore, "db", "file:/w", orc).ensureTable("orders", V1, BY_DAY));
        assertTrue(byHand.getMessage().contains("has the columns [note, qty, id], not [id, qty, note]")
                && byHand.getMessage().contains("read by position"), byHand.getMessage());
        java.util.Collections.reverse(metastore.tables.get("db.orders").getSd().getCols());
        ConnectException asParquet = assertThrows(ConnectException.class, () -> new HiveTables(metastore, "db",
                "file:/w", table -> TableConfig.of(Map.of("format", "parquet"), null)).ensureTable("orders", V1,
                        BY_DAY));
        assertTrue(asParquet.getMessage().contains("holds orc files, and the connector is set to write parquet files")
                && asParquet.getMessage().contains("table.orders.format=orc"), asParquet.getMessage());
    }

    @Test
    void aCachedTableAlteredByHandIsCheckedAgainAtTheNextCommitNotTheNextRestart() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables asOrc = new HiveTables(metastore, "db", "file:/w", table -> TableConfig.of(Map.of("format", "orc"),
                null));
        asOrc.ensureTable("orders", V1, BY_DAY);
        Table stored = metastore.tables.get("db.orders");

        // its columns reordered, its avro.schema.literal left alone
        java.util.Collections.reverse(stored.getSd().getCols());
        asOrc.refresh(List.of("orders"));
        ConnectException reordered = assertThrows(ConnectException.class,
                () -> asOrc.ensureTable("orders", V1, BY_DAY));
        assertTrue(reordered.getMessage().contains("read by position"), reordered.getMessage());
        java.util.Collections.reverse(stored.getSd().getCols());
        asOrc.refresh(List.of("orders"));
        asOrc.ensureTable("orders", V1, BY_DAY);

        // set to another file format
        stored.getSd().getSerdeInfo().setSerializationLib(
                "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
        stored.getSd().setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        asOrc.refresh(List.of("orders"));
        ConnectException otherFormat = assertThrows(ConnectException.class,
                () -> asOrc.ensureTable("orders", V1, BY_DAY));
        assertTrue(otherFormat.getMessage().contains("holds parquet files"), otherFormat.getMessage());
    }

    @Test
    void aPartitionValueOfAnotherTypeThanTheTablesColumnIsARecordError() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        HiveTables tables = new HiveTables(metastore, "db", "file:/w", DEFAULTS);
        PartitionSpec byIntRegion = new PartitionSpec(List.of("region"), List.of("int"));
        tables.ensureTable("orders", V1, byIntRegion);
        tables.ensureTable("orders", V1, new PartitionSpec(List.of("region"), List.of("bigint")));
        DataException text = assertThrows(DataException.class, () -> tables.ensureTable("orders", V1,
                new PartitionSpec(List.of("region"), List.of("string"))));
        assertTrue(text.getMessage().contains("partition column region is int in the table, but the record's value "
                + "for it is string, which Hive would read as NULL"), text.getMessage());
        DataException fresh = assertThrows(DataException.class, () -> new HiveTables(metastore, "db", "file:/w",
                DEFAULTS)
                .ensureTable("orders", V1, new PartitionSpec(List.of("region"), List.of("boolean"))));
        assertTrue(fresh.getMessage().contains("is int in the table"), fresh.getMessage());

        tables.ensureTable("by_text", V1, new PartitionSpec(List.of("region"), List.of("string")));
        for (String any : List.of("int", "bigint", "boolean", "date", "string")) {
            tables.ensureTable("by_text", V1, new PartitionSpec(List.of("region"), List.of(any)));
        }
    }

    @Test
    void aTableNestedDeeperThanHiveCanQueryOrRecursiveIsARecordError() {
        HiveTables tables = new HiveTables(new InMemoryMetastore(), "db", "file:/w", DEFAULTS);
        tables.ensureTable("nested", nested(HiveTypes.MAX_NESTING), PartitionSpec.UNPARTITIONED);
        DataException deep = assertThrows(DataException.class,
                () -> tables.ensureTable("deeper", nested(HiveTypes.MAX_NESTING + 1), PartitionSpec.UNPARTITIONED));
        assertTrue(deep.getMessage().contains("column n nests 21 levels of records, arrays and maps; Hive plans "
                + "queries of a table nested deeper than 20 levels too slowly"), deep.getMessage());
        Schema tree = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Tree\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"children\",\"type\":{\"type\":\"array\","
                + "\"items\":\"Tree\"}}]}");
        DataException recursive = assertThrows(DataException.class,
                () -> tables.ensureTable("tree", tree, PartitionSpec.UNPARTITIONED));
        assertTrue(recursive.getMessage().contains("column children has a recursive type"), recursive.getMessage());
    }

    /** A record whose column n nests {@code levels} levels: records, and an array and a map among them. */
    private static Schema nested(int levels) {
        Schema inner = Schema.createRecord("L1", null, "ns", false,
                List.of(new Schema.Field("v", Schema.create(Schema.Type.INT))));
        for (int level = 2; level <= levels; level++) {
            if (level == 6) {
                inner = Schema.createArray(inner);
            } else if (level == 10) {
                inner = Schema.createMap(inner);
            } else {
                Schema field = level == 7 ? Schema.createUnion(Schema.create(Schema.Type.NULL), inner) : inner;
                inner = Schema.createRecord("L" + level, null, "ns", false, List.of(new Schema.Field("n", field)));
            }
        }
        return Schema.createRecord("Top", null, "ns", false, List.of(new Schema.Field("n", inner)));
    }

    private static List<String> columns(List<FieldSchema> columns) {
        return columns.stream().map(c -> c.getName() + ":" + c.getType()).toList();
    }
}
