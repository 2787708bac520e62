package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.fs.StagingArea;
import io.hivesink.it.support.HadoopSeekableInput;
import io.hivesink.it.support.OrderRows;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.hive.HiveSql;

/**
 * The connector deployed through the Connect REST API on a real broker and worker, writing to MiniDFSCluster and a
 * Thrift metastore, checked through HiveServer2 SQL and Avro's own reader; the customers table is Parquet and the
 * prospects table (the same records from another topic) ORC ({@code table.<name>.format}), so one batch lands in three
 * formats.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class HiveSinkEndToEndIT {

    private static final String ORDERS_TOPIC = "shop.orders-v1";
    private static final String CUSTOMERS_TOPIC = "customers";
    private static final String DATABASE = "shop";
    private static final String ORDERS_TABLE = "shop_orders_v1";
    private static final String CUSTOMERS_TABLE = "dim_customers";
    private static final String PROSPECTS_TOPIC = "prospects";
    private static final String PROSPECTS_TABLE = "dim_prospects";
    private static final int ORDERS = 3001;
    private static final int CUSTOMERS = 500;
    private static final Duration LANDING_TIMEOUT = Duration.ofMinutes(3);

    private EmbeddedStack stack;
    private KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    void startStack(EmbeddedStack embedded) {
        stack = embedded;
        producer = stack.producer();
    }

    @Test
    void landsTwoTopicsInTwoPartitionedTablesThatHiveQueriesExactly() throws Exception {
        stack.connect().kafka().createTopic(ORDERS_TOPIC, 3);
        stack.connect().kafka().createTopic(CUSTOMERS_TOPIC, 2);
        stack.connect().kafka().createTopic(PROSPECTS_TOPIC, 1);
        SampleData.produce(producer, ORDERS_TOPIC, SampleData.ORDER, 0, ORDERS / 2, SampleData::order);
        SampleData.produce(producer, CUSTOMERS_TOPIC, SampleData.CUSTOMER, 0, CUSTOMERS, SampleData::customer);
        SampleData.produce(producer, PROSPECTS_TOPIC, SampleData.CUSTOMER, 0, CUSTOMERS, SampleData::customer);

        Map<String, String> config = stack.connectorConfig("orders-sink");
        config.put("topics", ORDERS_TOPIC + "," + CUSTOMERS_TOPIC + "," + PROSPECTS_TOPIC);
        config.put("tasks.max", "2");
        config.put("hive.database", DATABASE);
        config.put("hive.table.map", CUSTOMERS_TOPIC + ":" + CUSTOMERS_TABLE + "," + PROSPECTS_TOPIC + ":"
                + PROSPECTS_TABLE);
        config.put("partition.fields", "region");
        config.put("batch.max.records", "1000");
        config.put("avro.codec", "snappy");
        config.put("table." + CUSTOMERS_TABLE + ".format", "parquet"); // one batch, three formats
        config.put("table." + PROSPECTS_TABLE + ".format", "orc");
        stack.connect().configureConnector("orders-sink", config);
        // the rest arrives while the connector runs
        SampleData.produce(producer, ORDERS_TOPIC, SampleData.ORDER, ORDERS / 2, ORDERS, SampleData::order);
        stack.awaitCommittedToEnd("orders-sink", LANDING_TIMEOUT, ORDERS_TOPIC, CUSTOMERS_TOPIC, PROSPECTS_TOPIC);

        HiveSql hive = stack.hive();
        String orders = DATABASE + "." + ORDERS_TABLE;
        String customers = DATABASE + "." + CUSTOMERS_TABLE;

        assertEquals(List.of(List.of("region=apac"), List.of("region=eu"), List.of("region=us")),
                hive.query("show partitions " + orders));
        assertEquals(List.of(List.of("region=apac"), List.of("region=eu"), List.of("region=us")),
                hive.query("show partitions " + customers));

        assertEquals(List.of(List.of(Integer.toString(ORDERS))), hive.query("select count(*) from " + orders));
        assertEquals(List.of(List.of(Integer.toString(CUSTOMERS))), hive.query("select count(*) from " + customers));

        long qtySum = 0;
        BigDecimal amountSum = BigDecimal.ZERO;
        Map<String, Integer> ordersPerRegion = new TreeMap<>();
        for (long id = 0; id < ORDERS; id++) {
            qtySum += SampleData.qty(id);
            amountSum = amountSum.add(SampleData.amount(id));
            ordersPerRegion.merge(SampleData.region(id), 1, Integer::sum);
        }
        assertEquals(List.of(List.of(Long.toString(qtySum), amountSum.toPlainString())),
                hive.query("select sum(qty), cast(sum(amount) as string) from " + orders));
        assertEquals(expectedCounts(ordersPerRegion),
                hive.query("select region, count(*) from " + orders + " group by region order by region"));
        Map<String, Integer> customersPerRegion = new TreeMap<>();
        for (long id = 0; id < CUSTOMERS; id++) {
            customersPerRegion.merge(SampleData.region(id), 1, Integer::sum);
        }
        assertEquals(expectedCounts(customersPerRegion),
                hive.query("select region, count(*) from " + customers + " group by region order by region"));

        String everyType = "select " + OrderRows.EVERY_COLUMN + " from " + orders + " where id in (7, 15) order by id";
        List<List<String>> rows = hive.query(everyType);
        assertEquals(List.of(OrderRows.expected(7), OrderRows.expected(15)), rows);

        for (String table : List.of(customers, DATABASE + "." + PROSPECTS_TABLE)) {
            assertEquals(expectedCounts(customersPerRegion),
                    hive.query("select region, count(*) from " + table + " group by region order by region"));
            assertEquals(List.of(List.of("42", SampleData.region(42), "Customer 42", "false",
                    SampleData.BASE_DAY.minusDays(42).toString())),
                    hive.query("select id, region, name, vip, cast(since as string) from " + table
                            + " where id = 42"), table);
        }

        assertFilesHoldEveryRecordOnceInOrder(orders, ORDERS);
        assertEquals(List.of(".parquet"), fileExtensions(CUSTOMERS_TABLE), "the customers table is Parquet");
        assertEquals(List.of(".orc"), fileExtensions(PROSPECTS_TABLE), "the prospects table is ORC");
        assertTheReadmeLedgerQueriesWork(hive, orders);
    }

    /** The extensions of a table's data files. */
    private List<String> fileExtensions(String table) throws Exception {
        RemoteIterator<LocatedFileStatus> files = stack.fileSystem().listFiles(new org.apache.hadoop.fs.Path(
                stack.hdfsUri() + "/warehouse/hive-sink/" + DATABASE + ".db/" + table), true);
        Set<String> extensions = new java.util.TreeSet<>();
        while (files.hasNext()) {
            String name = files.next().getPath().getName();
            if (!name.startsWith(".") && !name.startsWith("_")) {
                extensions.add(name.substring(name.lastIndexOf('.')));
            }
        }
        return List.copyOf(extensions);
    }

    /** The reader queries of the README, run as written there, against what the connector landed. */
    private void assertTheReadmeLedgerQueriesWork(HiveSql hive, String orders) throws Exception {
        String ledger = DATABASE + ".hive_sink_ledger";
        List<List<String>> batches = hive.query("select batch_id, connector_name, task_id, sum(record_count) as "
                + "records, count(distinct table_name) as tables, min(commit_time) as committed from " + ledger
                + " group by batch_id, connector_name, task_id");
        assertEquals(ORDERS + 2 * CUSTOMERS, batches.stream().mapToLong(r -> Long.parseLong(r.get(3))).sum(),
                "the ledger's complete batches hold every record once: " + batches);
        assertTrue(batches.stream().allMatch(r -> r.get(1).equals("orders-sink")), batches.toString());

        assertEquals(List.of(List.of(Integer.toString(ORDERS))), hive.query("select count(*) from " + orders
                + " o join (select distinct batch_id from " + ledger + " where table_name = '" + ORDERS_TABLE
                + "') b on regexp_extract(o.INPUT__FILE__NAME, 'part-(.+)-[0-9]+\\.avro$', 1) = b.batch_id"),
                "every landed order belongs to a complete batch");

        Map<String, String> ends = new TreeMap<>();
        try (Admin admin = stack.connect().kafka().createAdminClient()) {
            for (int p = 0; p < 3; p++) {
                TopicPartition tp = new TopicPartition(ORDERS_TOPIC, p);
                long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
                ends.put(ORDERS_TOPIC + "-" + p, Long.toString(end - 1));
            }
        }
        Map<String, String> highWater = new TreeMap<>();
        for (List<String> row : hive.query("select k.topic, k.kafka_partition, max(k.last_offset) from " + ledger
                + " lateral view explode(kafka_offsets) o as k where k.topic = '" + ORDERS_TOPIC + "' group by "
                + "k.topic, k.kafka_partition")) {
            highWater.put(row.get(0) + "-" + row.get(1), row.get(2));
        }
        assertEquals(ends, highWater, "the last committed offset of each Kafka partition");

        Map<String, Long> behind = new TreeMap<>();
        for (List<String> row : hive.query("select table_name, max(max_timestamp) as newest_landed, "
                + "unix_timestamp() - unix_timestamp(max(max_timestamp)) as seconds_behind from " + ledger
                + " group by table_name")) {
            behind.put(row.get(0), Long.parseLong(row.get(2)));
        }
        assertTrue(behind.keySet().containsAll(List.of(ORDERS_TABLE, CUSTOMERS_TABLE)), behind.toString());
        // the records were produced minutes ago; a session zone other than UTC shifts it by at most 14 hours
        assertTrue(behind.values().stream().allMatch(s -> Math.abs(s) < 15 * 3600), "seconds behind: " + behind);
    }

    private static List<List<String>> expectedCounts(Map<String, Integer> counts) {
        List<List<String>> rows = new ArrayList<>();
        counts.forEach((region, count) -> rows.add(List.of(region, Integer.toString(count))));
        return rows;
    }

    private void assertFilesHoldEveryRecordOnceInOrder(String table, int expected) throws Exception {
        FileSystem fs = stack.fileSystem();
        org.apache.hadoop.fs.Path location = new org.apache.hadoop.fs.Path(stack.hdfsUri()
                + "/warehouse/hive-sink/" + DATABASE + ".db/" + ORDERS_TABLE);
        RemoteIterator<LocatedFileStatus> files = fs.listFiles(location, true);
        Set<Long> ids = new HashSet<>();
        int records = 0;
        int fileCount = 0;
        while (files.hasNext()) {
            LocatedFileStatus file = files.next();
            String name = file.getPath().getName();
            if (name.startsWith(".") || name.startsWith("_")) {
                continue;
            }
            fileCount++;
            assertTrue(name.endsWith(".avro"), "unexpected file " + file.getPath());
            String region = file.getPath().getParent().getName().substring("region=".length());
            try (DataFileReader<GenericRecord> reader = new DataFileReader<>(
                    new HadoopSeekableInput(fs, file.getPath()),
                    new GenericDatumReader<>())) {
                assertEquals("snappy", reader.getMetaString("avro.codec"));
                Schema schema = reader.getSchema();
                assertNull(schema.getField("region"), "the partition column must not be in the data");
                assertEquals("NEW", schema.getField("status").defaultVal());
                assertNotNull(schema.getField("priority").defaultVal());
                Map<Integer, Long> lastIdPerKafkaPartition = new HashMap<>();
                for (GenericRecord record : reader) {
                    long id = (Long) record.get("id");
                    assertEquals(SampleData.region(id), region, "record " + id + " in the wrong partition");
                    assertTrue(ids.add(id), "record " + id + " landed twice");
                    records++;
                    int kafkaPartition = kafkaPartitionOf(id);
                    Long last = lastIdPerKafkaPartition.put(kafkaPartition, id);
                    assertTrue(last == null || last < id, "records out of order in " + file.getPath());
                }
            }
        }
        assertEquals(expected, records, "records in the files of " + table);
        assertEquals(expected, ids.size());
        assertTrue(fileCount >= 3, "expected files in each partition, found " + fileCount);
    }

    /** The producer's default partitioner: murmur2 of the key bytes, over the orders topic's 3 partitions. */
    private static int kafkaPartitionOf(long id) {
        byte[] key = Long.toString(id).getBytes(StandardCharsets.UTF_8);
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key)) % 3;
    }

    @Test
    void validateEndpointReportsEachBadValueOnItsKey() {
        Map<String, String> config = stack.connectorConfig("bad-config");
        config.put("topics", "anything");
        config.put("hive.metastore.uris", "localhost:9083");
        config.put("avro.codec", "lz5");
        config.put("batch.max.records", "0");
        config.put("hive.table.map", "orders");
        config.put("warehouse.dir", "relative/path");
        ConfigInfos result = stack.connect().validateConnectorConfig("HiveSinkConnector", config);
        Map<String, List<String>> errors = new HashMap<>();
        for (ConfigInfo info : result.values()) {
            if (!info.configValue().errors().isEmpty()) {
                errors.put(info.configValue().name(), info.configValue().errors());
            }
        }
        assertEquals(Set.of("hive.metastore.uris", "avro.codec", "batch.max.records", "hive.table.map",
                "warehouse.dir"), errors.keySet(), errors.toString());
        assertTrue(errors.get("hive.metastore.uris").get(0).contains("thrift://host:port"),
                errors.get("hive.metastore.uris").toString());
        assertTrue(errors.get("avro.codec").get(0).contains("snappy"), errors.get("avro.codec").toString());

        Map<String, String> levelMismatch = stack.connectorConfig("bad-level");
        levelMismatch.put("topics", "anything");
        levelMismatch.put("avro.codec", "snappy");
        levelMismatch.put("avro.codec.level", "5");
        ConfigInfos levelResult = stack.connect().validateConnectorConfig("HiveSinkConnector", levelMismatch);
        List<String> levelErrors = levelResult.values().stream()
                .filter(info -> info.configValue().name().equals("avro.codec.level"))
                .findFirst().orElseThrow().configValue().errors();
        assertEquals(1, levelErrors.size(), levelErrors.toString());
        assertTrue(levelErrors.get(0).contains("takes no level"), levelErrors.toString());
        assertEquals(1, levelResult.errorCount());
    }

    @Test
    void tombstonesAndSchemalessRecordsFailTheTaskNamingTheRecord() throws Exception {
        stack.connect().kafka().createTopic("with-tombstone", 1);
        JsonConverterRecords.send(producer, "with-tombstone", SampleData.CUSTOMER, SampleData.customer(1));
        producer.send(new ProducerRecord<>("with-tombstone", "2".getBytes(StandardCharsets.UTF_8), null)).get();
        assertTaskFailsNaming("tombstone-sink", "with-tombstone", Map.of(),
                "Record topic=with-tombstone partition=0 offset=1", "tombstone");

        stack.connect().kafka().createTopic("schemaless", 1);
        producer.send(new ProducerRecord<>("schemaless", "1".getBytes(StandardCharsets.UTF_8),
                "{\"id\": 1}".getBytes(StandardCharsets.UTF_8))).get();
        assertTaskFailsNaming("schemaless-sink", "schemaless", Map.of("value.converter.schemas.enable", "false"),
                "Record topic=schemaless partition=0 offset=0", "schemas.enable=true");
    }

    /**
     * A start killed inside its staging probe leaves the probe file open, its lease held by a client that is gone:
     * the next start's probe removes it on its first try on HDFS, and the killed client could not have finished it
     * after.
     */
    @Test
    void aProbeFileAKilledStartLeftOpenOnHdfsIsRemovedByTheNextStartAtOnce() throws Exception {
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("/probe-it/conn/task-0");
        org.apache.hadoop.fs.Path probe = new org.apache.hadoop.fs.Path(root, "_probe");
        try (FileSystem killed = FileSystem.newInstance(stack.fileSystem().getUri(), stack.fileSystem().getConf());
                FileSystem next = FileSystem.newInstance(stack.fileSystem().getUri(), stack.fileSystem().getConf())) {
            org.apache.hadoop.fs.FSDataOutputStream open = killed.create(probe, true);
            open.write(1);
            open.hflush(); // on the datanodes, under the killed start's lease

            // the first try succeeds: an AlreadyBeingCreatedException would make it throw StorageUnavailable
            new StagingArea(next, root).prepare("the test's user");

            assertFalse(next.exists(probe), "removed by the next start's probe");
            assertThrows(java.io.IOException.class, open::close, "the killed start's file is gone");
        }
    }

    /** Deploys a connector on {@code topic} and waits for its task to fail with a trace holding both strings. */
    private void assertTaskFailsNaming(String connector, String topic, Map<String, String> overrides,
            String record, String hint) throws InterruptedException {
        Map<String, String> config = stack.connectorConfig(connector);
        config.put("topics", topic);
        config.put("hive.database", "bad_input");
        config.putAll(overrides);
        stack.connect().configureConnector(connector, config);
        String trace = awaitFailedTaskTrace(connector);
        assertTrue(trace.contains(record), trace);
        assertTrue(trace.contains(hint), trace);
    }

    private String awaitFailedTaskTrace(String connector) throws InterruptedException {
        return stack.awaitFailedTaskTrace(connector, Duration.ofMinutes(2));
    }

    /** One record as JsonConverter with schemas writes it. */
    static final class JsonConverterRecords {
        static void send(KafkaProducer<byte[], byte[]> producer, String topic,
                org.apache.kafka.connect.data.Schema schema, org.apache.kafka.connect.data.Struct value)
                throws Exception {
            byte[] bytes = SampleData.jsonConverter().fromConnectData(topic, schema, value);
            producer.send(new ProducerRecord<>(topic, "1".getBytes(StandardCharsets.UTF_8), bytes)).get();
        }
    }
}
