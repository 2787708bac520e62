package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.it.support.HadoopSeekableInput;
import io.hivesink.it.support.StackExtension;
import io.hivesink.it.support.UserBucketPartitioner;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.hive.HiveSql;

/**
 * Routing, partitioning, table creation and schema evolution on the real stack (broker, Connect worker over REST,
 * MiniDFSCluster, metastore, HiveServer2), each checked with Hive queries over the landed tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class TablesIT {

    private static final Duration LANDING_TIMEOUT = Duration.ofMinutes(3);
    private static final String DATABASE = "tables_it";
    private static final long BASE_TIME = Instant.parse("2026-11-19T22:40:00Z").toEpochMilli();

    private EmbeddedStack stack;
    private KafkaProducer<byte[], byte[]> producer;
    private final JsonConverter json = SampleData.jsonConverter();

    @BeforeAll
    void startStack(EmbeddedStack embedded) {
        stack = embedded;
        producer = stack.producer();
    }

    static final Schema PAYMENT = SchemaBuilder.struct().name("Payment")
            .field("id", Schema.INT64_SCHEMA)
            .field("amount", Schema.FLOAT64_SCHEMA)
            .build();

    static Struct payment(long id) {
        return new Struct(PAYMENT).put("id", id).put("amount", id * 1.5);
    }

    @Test
    void topicsRouteByPatternAndExplicitMapAndManyTopicsShareATable() throws Exception {
        List<String> topics = List.of("prod.sales.orders.v1", "prod.sales.Returns-Q4.v2", "eu.payments",
                "us.payments");
        for (String topic : topics) {
            stack.connect().kafka().createTopic(topic, 2);
        }
        send("prod.sales.orders.v1", PAYMENT, 0, 120, TablesIT::payment, id -> BASE_TIME);
        // returns are partitioned by their Kafka timestamp: two days
        send("prod.sales.Returns-Q4.v2", PAYMENT, 0, 40, TablesIT::payment, id -> BASE_TIME + id * 3_600_000L);
        send("eu.payments", PAYMENT, 0, 30, TablesIT::payment, id -> BASE_TIME);
        send("us.payments", PAYMENT, 100, 150, TablesIT::payment, id -> BASE_TIME);

        Map<String, String> config = connector("routing", String.join(",", topics));
        config.put("route.topic.regex", "prod\\.sales\\.([A-Za-z0-9-]+)\\.v\\d+");
        config.put("route.table.template", "sales_${1}");
        config.put("hive.table.map", "eu.payments:payments,us.payments:payments");
        config.put("table.payments.partitioner", "kafka");
        config.put("table.payments.table.properties", "owner.team=payments");
        config.put("table.payments.batch.max.records", "25");
        config.put("table.sales_returns_q4.partitioner", "time");
        config.put("table.sales_orders.location", "/data/sales/orders");
        config.put("table.sales_orders.avro.codec", "deflate");
        config.put("table.sales_orders.avro.codec.level", "9");
        config.put("table.properties", "created.for=TablesIT");
        stack.connect().configureConnector("routing", config);
        stack.awaitCommittedToEnd("routing", LANDING_TIMEOUT, topics.toArray(String[]::new));

        HiveSql hive = stack.hive();
        List<List<String>> tables = hive.query("show tables in " + DATABASE);
        for (String table : List.of("sales_orders", "sales_returns_q4", "payments")) {
            assertTrue(tables.contains(List.of(table)), table + " in " + tables);
        }
        assertTrue(tables.stream().noneMatch(t -> t.get(0).startsWith("hive_sink_state")),
                "the connector's state is not among the user's tables: " + tables);
        assertTrue(hive.query("show tables in hive_sink").contains(List.of("hive_sink_state_routing_0")),
                "it is in a database of its own");
        assertEquals(List.of(List.of("120", sum(0, 120))), hive.query("select count(*), cast(sum(amount) as string)"
                + " from " + DATABASE + ".sales_orders"));
        assertEquals(List.of("deflate"), codecsOfFiles("/data/sales/orders"),
                "table.sales_orders.location places the table, table.sales_orders.avro.codec compresses its files");
        assertEquals(List.of("snappy"), codecsOfFiles("/warehouse/hive-sink/" + DATABASE + ".db/payments"));
        assertEquals(List.of(List.of("eu.payments", "30"), List.of("us.payments", "50")), hive.query(
                "select kafka_topic, count(*) from " + DATABASE + ".payments group by kafka_topic "
                        + "order by kafka_topic"));
        assertEquals(List.of(List.of("kafka_topic=eu.payments/kafka_partition=0"),
                List.of("kafka_topic=eu.payments/kafka_partition=1"),
                List.of("kafka_topic=us.payments/kafka_partition=0"),
                List.of("kafka_topic=us.payments/kafka_partition=1")),
                hive.query("show partitions " + DATABASE + ".payments"));
        List<List<String>> paymentBatches = hive.query("select batch_id, sum(record_count) from " + DATABASE
                + ".hive_sink_ledger where connector_name = 'routing' and table_name = 'payments' group by batch_id");
        assertEquals(80, paymentBatches.stream().mapToLong(r -> Long.parseLong(r.get(1))).sum());
        assertTrue(paymentBatches.size() >= 4 && paymentBatches.stream().allMatch(r -> Long.parseLong(r.get(1)) <= 25),
                "table.payments.batch.max.records closes a batch at 25 payments: " + paymentBatches);
        assertEquals(List.of(List.of("owner.team", "payments")),
                hive.query("show tblproperties " + DATABASE + ".payments('owner.team')"));
        assertEquals(List.of(List.of("created.for", "TablesIT")),
                hive.query("show tblproperties " + DATABASE + ".sales_orders('created.for')"));

        Map<String, Integer> perDay = new TreeMap<>();
        for (long id = 0; id < 40; id++) {
            perDay.merge(DateTimeFormatter.ISO_LOCAL_DATE.withZone(ZoneId.of("UTC"))
                    .format(Instant.ofEpochMilli(BASE_TIME + id * 3_600_000L)), 1, Integer::sum);
        }
        assertEquals(rows(perDay), hive.query("select dt, count(*) from " + DATABASE + ".sales_returns_q4 "
                + "group by dt order by dt"), "partitioned by the Kafka record timestamp, in UTC");
    }

    static final Schema CLICK = SchemaBuilder.struct().name("Click")
            .field("kind", Schema.STRING_SCHEMA)
            .field("user", Schema.STRING_SCHEMA)
            .field("at", Timestamp.builder().optional().build())
            .field("at_text", Schema.OPTIONAL_STRING_SCHEMA)
            .field("at_epoch", Schema.OPTIONAL_INT64_SCHEMA)
            .field("n", Schema.INT64_SCHEMA)
            .build();

    static final List<String> KINDS = List.of("click", "view", "Add-To-Cart", "purchase");
    static final ZoneId INDIA = ZoneId.of("Asia/Kolkata");

    /** One event time, three ways: a Timestamp, text in India's local time, and epoch seconds. */
    static Struct click(long n) {
        boolean timeless = n % 11 == 0;
        return new Struct(CLICK).put("kind", KINDS.get((int) (n % KINDS.size()))).put("user", "u" + (n % 7))
                .put("at", timeless ? null : new java.util.Date(clickTime(n)))
                .put("at_text", timeless ? null : DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(INDIA)
                        .format(Instant.ofEpochMilli(clickTime(n))))
                .put("at_epoch", timeless ? null : clickTime(n) / 1000)
                .put("n", n);
    }

    static long clickTime(long n) {
        return BASE_TIME + n * 97_000L; // 300 clicks over about 8 hours
    }

    @Test
    void oneTopicFansOutByFieldIntoTablesPartitionedByEventTimeAndByACustomPartitioner() throws Exception {
        String topic = "web.click-stream";
        stack.connect().kafka().createTopic(topic, 2);
        send(topic, CLICK, 0, 300, TablesIT::click, n -> BASE_TIME);

        Map<String, String> config = connector("fan-out", topic);
        config.put("route.field", "kind");
        config.put("route.table.template", "web_${field}");
        config.put("partitioner", "time");
        config.put("partition.time.field", "at");
        config.put("partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        config.put("table.web_view.partition.time.zone", "Asia/Kolkata");
        config.put("table.web_view.partition.time.field", "at_text");
        config.put("table.web_view.partition.time.field.format", "yyyy-MM-dd HH:mm:ss");
        config.put("table.web_purchase.partition.time.field", "at_epoch");
        config.put("table.web_purchase.partition.time.field.unit", "seconds");
        config.put("table.web_add_to_cart.partitioner", UserBucketPartitioner.class.getName());
        config.put("user.buckets", "3");
        stack.connect().configureConnector("fan-out", config);
        stack.awaitCommittedToEnd("fan-out", LANDING_TIMEOUT, topic);

        HiveSql hive = stack.hive();
        assertEquals(rows(expectedHours("click", ZoneId.of("UTC"))), hive.query("select dt, hr, count(*) from "
                + DATABASE + ".web_click group by dt, hr order by dt, hr"));
        assertEquals(rows(expectedHours("view", INDIA)), hive.query("select dt, hr, count(*) "
                + "from " + DATABASE + ".web_view group by dt, hr order by dt, hr"),
                "this table reads its time from text in India's local time, and its hours are India's");
        assertEquals(rows(expectedHours("purchase", ZoneId.of("UTC"))), hive.query("select dt, hr, count(*) from "
                + DATABASE + ".web_purchase group by dt, hr order by dt, hr"), "time from epoch seconds");
        assertTrue(hive.query("show partitions " + DATABASE + ".web_click").contains(
                List.of("dt=__HIVE_DEFAULT_PARTITION__/hr=__HIVE_DEFAULT_PARTITION__")), "no time: default partition");

        Map<String, Integer> buckets = new TreeMap<>();
        for (long n = 2; n < 300; n += KINDS.size()) {
            buckets.merge(Integer.toString(UserBucketPartitioner.bucketOf("u" + (n % 7), 3)), 1, Integer::sum);
        }
        assertEquals(rows(buckets), hive.query("select user_bucket, count(*) from " + DATABASE
                + ".web_add_to_cart group by user_bucket order by user_bucket"));
        assertEquals(List.of(List.of("300")), hive.query("select sum(c) from (select count(*) c from " + DATABASE
                + ".web_click union all select count(*) c from " + DATABASE + ".web_view union all select count(*) c "
                + "from " + DATABASE + ".web_add_to_cart union all select count(*) c from " + DATABASE
                + ".web_purchase) t"), "every event landed once");
    }

    private static Map<String, Integer> expectedHours(String kind, ZoneId zone) {
        DateTimeFormatter dayHour = DateTimeFormatter.ofPattern("yyyy-MM-dd\tHH").withZone(zone);
        Map<String, Integer> counts = new TreeMap<>();
        for (long n = 0; n < 300; n++) {
            if (KINDS.get((int) (n % KINDS.size())).equals(kind)) {
                String key = n % 11 == 0 ? "__HIVE_DEFAULT_PARTITION__\t__HIVE_DEFAULT_PARTITION__"
                        : dayHour.format(Instant.ofEpochMilli(clickTime(n)));
                counts.merge(key, 1, Integer::sum);
            }
        }
        return counts;
    }

    static final Schema STOCK_V1 = SchemaBuilder.struct().name("Stock")
            .field("sku", Schema.INT64_SCHEMA)
            .field("warehouse", Schema.STRING_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .field("weight", Schema.FLOAT32_SCHEMA)
            .build();
    static final Schema STOCK_V2 = SchemaBuilder.struct().name("Stock")
            .field("sku", Schema.INT64_SCHEMA)
            .field("warehouse", Schema.STRING_SCHEMA)
            .field("qty", Schema.INT64_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("weight", Schema.FLOAT64_SCHEMA)
            .build();
    static final Schema STOCK_V3 = SchemaBuilder.struct().name("Stock")
            .field("status", SchemaBuilder.string().defaultValue("ok").build())
            .field("sku", Schema.INT64_SCHEMA)
            .field("warehouse", Schema.STRING_SCHEMA)
            .field("qty", Schema.INT64_SCHEMA)
            .field("price", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("weight", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .build();

    @Test
    void aSchemaThatEvolvesTwiceIsQueriedAcrossOldAndNewPartitions() throws Exception {
        String topic = "inventory";
        stack.connect().kafka().createTopic(topic, 1);
        Map<String, String> config = connector("evolving", topic);
        config.put("partition.fields", "warehouse");
        stack.connect().configureConnector("evolving", config);

        send(topic, STOCK_V1, 0, 100, sku -> new Struct(STOCK_V1).put("sku", sku)
                .put("warehouse", sku % 2 == 0 ? "a" : "b").put("qty", (int) sku).put("weight", sku * 0.25f),
                sku -> BASE_TIME);
        stack.awaitCommittedToEnd("evolving", LANDING_TIMEOUT, topic);
        send(topic, STOCK_V2, 100, 200, sku -> new Struct(STOCK_V2).put("sku", sku)
                .put("warehouse", sku % 2 == 0 ? "b" : "c").put("qty", sku * 1_000_000_000L)
                .put("note", "n" + sku).put("weight", sku * 0.25), sku -> BASE_TIME);
        stack.awaitCommittedToEnd("evolving", LANDING_TIMEOUT, topic);
        send(topic, STOCK_V3, 200, 300, sku -> new Struct(STOCK_V3).put("sku", sku)
                .put("warehouse", sku % 2 == 0 ? "c" : "d/1=x").put("qty", sku).put("price", sku / 4.0)
                .put("status", "s" + sku).put("weight", sku % 5 == 0 ? null : sku * 0.25), sku -> BASE_TIME);
        stack.awaitCommittedToEnd("evolving", LANDING_TIMEOUT, topic);

        HiveSql hive = stack.hive();
        String table = DATABASE + ".inventory";
        List<List<String>> columns = hive.query("describe " + table);
        assertEquals(List.of("sku\tbigint", "qty\tbigint", "weight\tdouble", "note\tstring", "status\tstring",
                "price\tdouble", "warehouse\tstring"), columns.stream().limit(7)
                .map(r -> r.get(0).trim() + "\t" + r.get(1).trim()).toList(), columns.toString());
        assertEquals(List.of(List.of("warehouse=a"), List.of("warehouse=b"), List.of("warehouse=c"),
                List.of("warehouse=d%2F1%3Dx")), hive.query("show partitions " + table),
                "partition values escaped as Hive escapes them");
        assertEquals(List.of(
                java.util.Arrays.asList("5", "b", "5", "1.25", null, "ok", null),
                java.util.Arrays.asList("150", "b", "150000000000", "37.5", "n150", "ok", null),
                java.util.Arrays.asList("151", "c", "151000000000", "37.75", "n151", "ok", null),
                java.util.Arrays.asList("250", "c", "250", null, null, "s250", "62.5"),
                java.util.Arrays.asList("251", "d/1=x", "251", "62.75", null, "s251", "62.75")),
                hive.query("select sku, warehouse, qty, weight, note, status, price from " + table
                        + " where sku in (5, 150, 151, 250, 251) order by sku"),
                "old rows read with the new columns: nulls, the default of status, float weights as doubles");
        assertEquals(List.of(List.of("a", "50"), List.of("b", "100"), List.of("c", "100"), List.of("d/1=x", "50")),
                hive.query("select warehouse, count(*) from " + table + " group by warehouse order by warehouse"),
                "one query over partitions written with three schemas");
    }

    static final Schema METER_V1 = SchemaBuilder.struct().name("Meter")
            .field("id", Schema.INT64_SCHEMA).field("reading", Schema.FLOAT64_SCHEMA).build();
    static final Schema METER_BAD = SchemaBuilder.struct().name("Meter")
            .field("id", Schema.STRING_SCHEMA).field("reading", Schema.FLOAT64_SCHEMA).build();

    static Struct meter(long id) {
        return new Struct(METER_V1).put("id", id).put("reading", id / 10.0);
    }

    static Struct badMeter(long id) {
        return new Struct(METER_BAD).put("id", "m" + id).put("reading", id / 10.0);
    }

    @Test
    void anIncompatibleChangeFailsTheTaskWithTheDocumentedError() throws Exception {
        String topic = "meters";
        stack.connect().kafka().createTopic(topic, 1);
        send(topic, METER_V1, 0, 20, TablesIT::meter, id -> BASE_TIME);
        stack.connect().configureConnector("meters-strict", connector("meters-strict", topic));
        stack.awaitCommittedToEnd("meters-strict", LANDING_TIMEOUT, topic);
        send(topic, METER_BAD, 20, 21, TablesIT::badMeter, id -> BASE_TIME);

        String trace = awaitFailedTaskTrace("meters-strict");
        assertTrue(trace.contains("Record topic=meters partition=0 offset=20"), trace);
        assertTrue(trace.contains("incompatible with table " + DATABASE + ".meters: column id is long in the table "
                + "but string in the records"), trace);
        assertEquals(List.of(List.of("20")), stack.hive().query("select count(*) from " + DATABASE + ".meters"));
    }

    @Test
    void withADeadLetterQueueIncompatibleRecordsGoThereAndTheRestLands() throws Exception {
        String topic = "meters-tolerant";
        stack.connect().kafka().createTopic(topic, 1);
        stack.connect().kafka().createTopic("meters-dlq", 1);
        send(topic, METER_V1, 0, 50, TablesIT::meter, id -> BASE_TIME);
        send(topic, METER_BAD, 50, 60, TablesIT::badMeter, id -> BASE_TIME);
        send(topic, METER_V1, 60, 110, TablesIT::meter, id -> BASE_TIME);

        Map<String, String> config = connector("meters-tolerant", topic);
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", "meters-dlq");
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        stack.connect().configureConnector("meters-tolerant", config);
        stack.awaitCommittedToEnd("meters-tolerant", LANDING_TIMEOUT, topic);

        assertEquals(List.of(List.of("100", "0", "109")), stack.hive().query("select count(*), min(id), max(id) from "
                + DATABASE + ".meters_tolerant"));
        ConsumerRecords<byte[], byte[]> dead = stack.connect().kafka().consume(10, 60_000, "meters-dlq");
        List<String> reasons = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : dead) {
            keys.add(new String(record.key(), StandardCharsets.UTF_8));
            Header message = record.headers().lastHeader("__connect.errors.exception.message");
            reasons.add(message == null ? null : new String(message.value(), StandardCharsets.UTF_8));
        }
        assertEquals(10, keys.size(), keys.toString());
        for (long id = 50; id < 60; id++) {
            assertTrue(keys.contains(Long.toString(id)), "record " + id + " in the dead-letter queue: " + keys);
        }
        assertTrue(reasons.stream().allMatch(r -> r != null && r.contains("column id is long in the table but string")),
                reasons.toString());
    }

    /**
     * A deployment from before state.database: its state in the tables' database. Its consumer group is deleted
     * between runs, so only the state it finds there can resume it without reading the first records again.
     */
    @Test
    void stateKeptInTheTablesDatabaseByAnEarlierBuildStaysThereAndResumesTheConnector() throws Exception {
        String topic = "legacy.events";
        String database = "tables_legacy";
        stack.connect().kafka().createTopic(topic, 1);
        send(topic, PAYMENT, 0, 50, TablesIT::payment, id -> BASE_TIME);
        Map<String, String> earlier = connector("legacy", topic);
        earlier.put("hive.database", database);
        earlier.put("state.database", database);
        stack.connect().configureConnector("legacy", earlier);
        stack.awaitCommittedToEnd("legacy", LANDING_TIMEOUT, topic);
        stack.connect().deleteConnector("legacy");
        deleteConsumerGroup("connect-legacy");

        send(topic, PAYMENT, 50, 80, TablesIT::payment, id -> BASE_TIME);
        Map<String, String> upgraded = new java.util.HashMap<>(earlier);
        upgraded.remove("state.database");
        stack.connect().configureConnector("legacy", upgraded);
        stack.awaitCommittedToEnd("legacy", LANDING_TIMEOUT, topic);

        HiveSql hive = stack.hive();
        assertEquals(List.of(List.of("80", "80", "0", "79")), hive.query("select count(*), count(distinct id), "
                + "min(id), max(id) from " + database + ".legacy_events"), "resumed from its state: each once");
        assertTrue(hive.query("show tables in " + database).contains(List.of("hive_sink_state_legacy_0")));
        assertTrue(hive.query("show tables in hive_sink").stream()
                .noneMatch(t -> t.get(0).startsWith("hive_sink_state_legacy_")), "no second state made");
        assertTrue(logLines().stream().anyMatch(l -> l.contains("The state of this connector is in database "
                + database + " (hive_sink_state_legacy_0), where hive-sink kept it before state.database existed, "
                + "not in hive_sink; it stays there. To move it: stop the connector, run ALTER TABLE " + database
                + ".<table> RENAME TO hive_sink.<table>")), "the log says where the state is and how to move it");
    }

    @Test
    void aConnectorOfTheSameNameLandingInAnotherDatabaseFailsInsteadOfTakingTheOthersOffsets() throws Exception {
        String topic = "twin.events";
        stack.connect().kafka().createTopic(topic, 1);
        send(topic, PAYMENT, 0, 10, TablesIT::payment, id -> BASE_TIME);
        Map<String, String> first = connector("twin", topic);
        first.put("hive.database", "tables_twin_a");
        stack.connect().configureConnector("twin", first);
        stack.awaitCommittedToEnd("twin", LANDING_TIMEOUT, topic);
        stack.connect().deleteConnector("twin");

        Map<String, String> second = connector("twin", topic);
        second.put("hive.database", "tables_twin_b");
        stack.connect().configureConnector("twin", second);
        String trace = awaitFailedTaskTrace("twin");
        assertTrue(trace.contains("The state table hive_sink.hive_sink_state_twin_0 belongs to a connector named "
                + "'twin' that lands in database tables_twin_a, but this one lands in tables_twin_b. If two "
                + "deployments share the name in this metastore, rename one, or give each a state.database of its "
                + "own."), trace);
        stack.connect().deleteConnector("twin");
    }

    private void deleteConsumerGroup(String group) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = stack.connect().kafka().createAdminClient()) {
            EmbeddedStack.await("the group " + group + " to be empty and deleted", Duration.ofMinutes(1), () -> {
                try {
                    admin.deleteConsumerGroups(List.of(group)).all().get();
                    return true;
                } catch (Exception e) {
                    return false; // its members have not left yet
                }
            });
        }
    }

    private static List<String> logLines() throws java.io.IOException {
        return java.nio.file.Files.readAllLines(java.nio.file.Path.of(System.getProperty("hivesink.log.file")),
                StandardCharsets.UTF_8);
    }

    /** The distinct codecs of the data files under a directory. */
    private List<String> codecsOfFiles(String dir) throws Exception {
        org.apache.hadoop.fs.FileSystem fs = stack.fileSystem();
        java.util.Set<String> codecs = new java.util.TreeSet<>();
        var files = fs.listFiles(new org.apache.hadoop.fs.Path(stack.hdfsUri() + dir), true);
        while (files.hasNext()) {
            org.apache.hadoop.fs.Path file = files.next().getPath();
            if (file.getName().endsWith(".avro")) {
                try (org.apache.avro.file.DataFileReader<Object> reader = new org.apache.avro.file.DataFileReader<>(
                        new HadoopSeekableInput(fs, file), new org.apache.avro.generic.GenericDatumReader<>())) {
                    codecs.add(reader.getMetaString("avro.codec"));
                }
            }
        }
        return new ArrayList<>(codecs);
    }

    private Map<String, String> connector(String name, String topics) {
        Map<String, String> config = stack.connectorConfig(name);
        config.put("topics", topics);
        config.put("hive.database", DATABASE);
        config.put("batch.max.records", "400");
        return config;
    }

    private void send(String topic, Schema schema, long from, long to, LongFunction<Struct> value,
            LongFunction<Long> timestamp) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long id = from; id < to; id++) {
            byte[] bytes = json.fromConnectData(topic, schema, value.apply(id));
            records.add(new ProducerRecord<>(topic, null, timestamp.apply(id),
                    Long.toString(id).getBytes(StandardCharsets.UTF_8), bytes));
        }
        SampleData.sendAll(producer, records);
    }

    private String awaitFailedTaskTrace(String connector) throws InterruptedException {
        return stack.awaitFailedTaskTrace(connector, Duration.ofMinutes(2));
    }

    private static String sum(long from, long to) {
        double sum = 0;
        for (long id = from; id < to; id++) {
            sum += id * 1.5;
        }
        return Double.toString(sum);
    }

    private static List<List<String>> rows(Map<String, Integer> counts) {
        List<List<String>> rows = new ArrayList<>();
        counts.forEach((key, count) -> {
            List<String> row = new ArrayList<>(List.of(key.split("\t")));
            row.add(Integer.toString(count));
            rows.add(row);
        });
        return rows;
    }
}
