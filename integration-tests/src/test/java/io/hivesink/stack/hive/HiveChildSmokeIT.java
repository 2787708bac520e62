package io.hivesink.stack.hive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The table layout the connector relies on, end to end without Kafka: a MiniDFSCluster in this JVM, the metastore
 * and HiveServer2 in child JVMs, an external partitioned Avro table created through the metastore client, an Avro
 * container file written through the Hadoop FileSystem API, read back with Hive SQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HiveChildSmokeIT {

    private static final String DB = "smoke_db";
    private static final String TABLE = "events";
    private static final String TRICKY = "multi\nline\twith tab and \\N backslash";

    private final Schema schema = SchemaBuilder.record("Event").namespace("io.hivesink.smoke").fields()
            .requiredLong("id")
            .optionalString("name")
            .requiredLong("amount")
            .endRecord();

    private Path base;
    private MiniDFSCluster dfs;
    private MetastoreProcess metastore;
    private HiveSql hive;
    private HiveMetaStoreClient client;
    private String tableLocation;
    private final long started = System.nanoTime();

    @BeforeAll
    void startStack() throws Exception {
        // one directory per run: two builds of this module at once must not share (or delete) each other's files
        String run = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + ProcessHandle.current().pid();
        base = Path.of("target", "hive-child-smoke", run).toAbsolutePath();
        Files.createDirectories(base);
        System.out.println("[HiveChildSmokeIT] work dir " + base);

        long t = System.nanoTime();
        Configuration dfsConf = new Configuration();
        dfs = new MiniDFSCluster.Builder(dfsConf, base.resolve("dfs").toFile()).numDataNodes(1).build();
        dfs.waitActive();
        String defaultFs = "hdfs://localhost:" + dfs.getNameNodePort();
        report("MiniDFSCluster", t);

        t = System.nanoTime();
        metastore = MetastoreProcess.start(base.resolve("metastore"), defaultFs);
        report("metastore child ready", t);

        Configuration clientConf = MetastoreConf.newMetastoreConf();
        MetastoreConf.setVar(clientConf, MetastoreConf.ConfVars.THRIFT_URIS, metastore.uri());
        client = new HiveMetaStoreClient(clientConf);
        createTableAndData(defaultFs);

        t = System.nanoTime();
        hive = HiveSql.start(base.resolve("hive"), metastore.uri(), defaultFs);
        report("Hive SQL child ready", t);
    }

    private void createTableAndData(String defaultFs) throws Exception {
        Database db = new Database();
        db.setName(DB);
        db.setLocationUri(metastore.warehouseDir() + "/" + DB + ".db");
        db.setParameters(new HashMap<>());
        client.createDatabase(db);

        tableLocation = metastore.externalWarehouseDir() + "/" + DB + ".db/" + TABLE;
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(
                new FieldSchema("id", "bigint", null),
                new FieldSchema("name", "string", null),
                new FieldSchema("amount", "bigint", null)));
        sd.setLocation(tableLocation);
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat");
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib("org.apache.hadoop.hive.serde2.avro.AvroSerDe");
        serde.setParameters(new HashMap<>());
        sd.setSerdeInfo(serde);
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setParameters(new HashMap<>());
        sd.setNumBuckets(-1);

        Table table = new Table();
        table.setDbName(DB);
        table.setTableName(TABLE);
        table.setOwner(System.getProperty("user.name"));
        table.setTableType("EXTERNAL_TABLE");
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("dt", "string", null)));
        Map<String, String> params = new HashMap<>();
        params.put("EXTERNAL", "TRUE");
        params.put("avro.schema.literal", schema.toString());
        table.setParameters(params);
        client.createTable(table);

        FileSystem fs = FileSystem.get(java.net.URI.create(defaultFs), new Configuration());
        writePartition(fs, sd, "2024-01-01", List.of(record(1, TRICKY, 10), record(2, null, 20), record(3, "c", 30)));
        writePartition(fs, sd, "2024-01-02", List.of(record(4, "d", 40), record(5, "e", 50)));
    }

    private void writePartition(FileSystem fs, StorageDescriptor tableSd, String dt, List<GenericRecord> records)
            throws Exception {
        String location = tableLocation + "/dt=" + dt;
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(location, "part-0000.avro");
        try (FSDataOutputStream out = fs.create(file, false);
                DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            writer.create(schema, out);
            for (GenericRecord r : records) {
                writer.append(r);
            }
        }
        Partition p = new Partition();
        p.setDbName(DB);
        p.setTableName(TABLE);
        p.setValues(List.of(dt));
        StorageDescriptor sd = new StorageDescriptor(tableSd);
        sd.setLocation(location);
        p.setSd(sd);
        p.setParameters(new HashMap<>());
        client.add_partition(p);
    }

    private GenericRecord record(long id, String name, long amount) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("name", name);
        r.put("amount", amount);
        return r;
    }

    @AfterAll
    void stopStack() throws Exception {
        long t = System.nanoTime();
        try {
            if (hive != null) {
                hive.close();
            }
            if (client != null) {
                client.close();
            }
            if (metastore != null) {
                metastore.close();
            }
        } finally {
            if (dfs != null) {
                dfs.shutdown();
            }
        }
        report("shutdown", t);
        report("whole class", started);
    }

    @Test
    void hiveReadsTheAvroPartitions() {
        long t = System.nanoTime();
        assertEquals(List.of(List.of("5")), hive.query("select count(*) from " + DB + "." + TABLE));
        report("count(*)", t);

        t = System.nanoTime();
        assertEquals(List.of(List.of("150")), hive.query("select sum(amount) from " + DB + "." + TABLE));
        report("sum(amount)", t);

        t = System.nanoTime();
        assertEquals(List.of(row("2024-01-01", "3", "60"), row("2024-01-02", "2", "90")),
                hive.query("select dt, count(*), sum(amount) from " + DB + "." + TABLE + " group by dt order by dt"));
        report("group by dt", t);

        assertEquals(List.of(row("dt=2024-01-01"), row("dt=2024-01-02")),
                hive.query("show partitions " + DB + "." + TABLE + ";"));

        HiveSql.Result star = hive.run("select * from " + DB + "." + TABLE + " where id = 3");
        assertEquals(List.of(TABLE + ".id", TABLE + ".name", TABLE + ".amount", TABLE + ".dt"), star.columns());
        assertEquals(List.of(row("3", "c", "30", "2024-01-01")), star.rows());

        List<List<String>> nullName = hive.query("select id, name from " + DB + "." + TABLE + " where id = 2");
        assertEquals(1, nullName.size());
        assertEquals("2", nullName.get(0).get(0));
        assertNull(nullName.get(0).get(1), "SQL NULL comes back as Java null");
    }

    @Test
    void protocolKeepsTabsNewlinesAndBackslashes() {
        // a literal, no table: what Hive itself returns for such a value
        List<List<String>> literal = hive.query("select 'a\\tb\\nc\\\\d', cast(null as string), ''");
        assertEquals(List.of(Arrays.asList("a\tb\nc\\d", null, "")), literal);
        // and the same from an Avro file
        assertEquals(List.of(List.of(TRICKY)), hive.query("select name from " + DB + "." + TABLE + " where id = 1"));
    }

    @Test
    void hiveErrorsCarryHiveMessageAndSessionSurvives() {
        HiveSqlException e = assertThrows(HiveSqlException.class, () -> hive.query("select * from " + DB + ".nope"));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
        assertEquals(List.of(row("1")), hive.query("select 1"));
    }

    @Test
    void metastoreCompareAndSetWorks() throws Exception {
        // the connector's commit protocol needs the metastore's direct SQL (STACK.md): a stale expected value fails
        Table t = table();
        t.putToParameters("hivesink.smoke", "v1");
        client.alter_table(DB, TABLE, t);

        Table next = table();
        next.putToParameters("hivesink.smoke", "v2");
        client.alter_table_with_environmentContext(DB, TABLE, next, expect("hivesink.smoke", "v1"));
        assertEquals("v2", table().getParameters().get("hivesink.smoke"));

        Table stale = table();
        stale.putToParameters("hivesink.smoke", "v3");
        assertThrows(MetaException.class,
                () -> client.alter_table_with_environmentContext(DB, TABLE, stale, expect("hivesink.smoke", "v1")));
        assertEquals("v2", table().getParameters().get("hivesink.smoke"));
    }

    private Table table() throws Exception {
        return client.getTable(new GetTableRequest(DB, TABLE));
    }

    private static EnvironmentContext expect(String key, String value) {
        EnvironmentContext ctx = new EnvironmentContext();
        ctx.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_KEY, key);
        ctx.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_VALUE, value);
        return ctx;
    }

    private static List<String> row(String... values) {
        return Arrays.asList(values);
    }

    private static void report(String what, long sinceNanos) {
        System.out.printf("[HiveChildSmokeIT] %s: %d ms%n", what, (System.nanoTime() - sinceNanos) / 1_000_000);
    }
}
