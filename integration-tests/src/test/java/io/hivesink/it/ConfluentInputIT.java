package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.input.ConfluentFrame;
import io.hivesink.it.support.HadoopSeekableInput;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.hive.HiveSql;
import io.hivesink.stack.hive.HiveSqlException;
import io.hivesink.stack.python.PythonVenv;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * {@code input.format=confluent-avro} end to end on the real stack: values framed by Confluent's serializers (Java
 * framing here, and Confluent's own Python client, {@code confluent-kafka}'s {@code AvroSerializer}), writer schemas
 * from a registry speaking Confluent's REST API ({@link RegistryStandIn}: no real one can be installed here), the
 * datums landed in Hive tables and checked with Hive queries; bad input in the dead-letter queue; a registry outage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class ConfluentInputIT {

    private static final Duration LANDING_TIMEOUT = Duration.ofMinutes(3);
    private static final String DATABASE = "confluent_it";
    /** The confluent-kafka release the Python producer uses; 2.16.1 needs a certifi the package mirror lacks. */
    private static final String CONFLUENT_KAFKA_VERSION = "2.16.0";
    private static final Path VENV = Path.of("target", "py-venv");
    private static final Path PRODUCER_SCRIPT = Path.of("src", "test", "python", "produce_confluent_avro.py");

    static final String TRADE_SCHEMA = "{\"type\":\"record\",\"name\":\"Trade\",\"namespace\":\"io.hivesink.sample\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"region\",\"type\":\"string\"},"
            + "{\"name\":\"symbol\",\"type\":\"string\"},{\"name\":\"price\",\"type\":\"double\"},"
            + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"side\",\"type\":{\"type\":\"enum\",\"name\":\"Side\","
            + "\"symbols\":[\"BUY\",\"SELL\"]}},{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
            + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    /** Trade with one more optional field: another schema, so another id. */
    static final String TRADE_V2_SCHEMA = TRADE_SCHEMA.substring(0, TRADE_SCHEMA.length() - 2)
            + ",{\"name\":\"venue\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    static final org.apache.avro.Schema TRADE = new org.apache.avro.Schema.Parser().parse(TRADE_SCHEMA);
    static final org.apache.avro.Schema TRADE_V2 = new org.apache.avro.Schema.Parser().parse(TRADE_V2_SCHEMA);

    /** The same record as Connect data, for the Struct path (JsonConverter with schemas). */
    static final Schema CONNECT_TRADE = SchemaBuilder.struct().name("io.hivesink.sample.Trade")
            .field("id", Schema.INT64_SCHEMA)
            .field("region", Schema.STRING_SCHEMA)
            .field("symbol", Schema.STRING_SCHEMA)
            .field("price", Schema.FLOAT64_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .field("side", Schema.STRING_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("at", Timestamp.SCHEMA)
            .build();

    // Every value is a function of the id; produce_confluent_avro.py computes the same ones in Python.
    static final List<String> REGIONS = List.of("eu", "us", "apac");
    static final List<String> SYMBOLS = List.of("ACME", "GLOBEX", "INITECH", "UMBRELLA", "STARK", "WAYNE", "HOOLI");

    static String region(long id) {
        return REGIONS.get((int) (id % 3));
    }

    static String symbol(long id) {
        return SYMBOLS.get((int) (id % 7)) + (id % 5 == 0 ? "-\u00e9" : "");
    }

    static double price(long id) {
        return id * 0.25 + 0.5;
    }

    static int qty(long id) {
        return (int) (id % 10) + 1;
    }

    static String side(long id) {
        return id % 2 == 0 ? "BUY" : "SELL";
    }

    static String note(long id) {
        return id % 4 == 0 ? null : "note \u00e9\u00e8 #" + id;
    }

    static long at(long id) {
        return SampleData.BASE_EPOCH_MILLIS + id * 1000;
    }

    static String venue(long id) {
        return id % 3 == 0 ? null : "X" + (id % 4);
    }

    static GenericRecord trade(org.apache.avro.Schema schema, long id) {
        GenericRecord record = new GenericData.Record(schema);
        record.put("id", id);
        record.put("region", region(id));
        record.put("symbol", symbol(id));
        record.put("price", price(id));
        record.put("qty", qty(id));
        record.put("side", new GenericData.EnumSymbol(schema.getField("side").schema(), side(id)));
        record.put("note", note(id));
        record.put("at", at(id));
        if (schema.getField("venue") != null) {
            record.put("venue", venue(id));
        }
        return record;
    }

    static Struct connectTrade(long id) {
        return new Struct(CONNECT_TRADE).put("id", id).put("region", region(id)).put("symbol", symbol(id))
                .put("price", price(id)).put("qty", qty(id)).put("side", side(id)).put("note", note(id))
                .put("at", new java.util.Date(at(id)));
    }

    static byte[] datum(GenericRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private EmbeddedStack stack;
    private RegistryStandIn registry;
    private KafkaProducer<byte[], byte[]> producer;
    private final CompletableFuture<Path> venv = CompletableFuture.supplyAsync(
            () -> EmbeddedStack.unchecked(ConfluentInputIT::pythonWithConfluentKafka)); // made while the stack starts
    private Path python;
    private final JsonConverter json = SampleData.jsonConverter();

    @BeforeAll
    void startStack(EmbeddedStack embedded) throws Exception {
        stack = embedded;
        registry = new RegistryStandIn().start();
        producer = stack.producer();
        python = venv.join();
    }

    @AfterAll
    void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void recordsFromJavaFramingAndFromConfluentsPythonSerializerLandAndAreQueriedInHive() throws Exception {
        String topic = "confluent-trades";
        String table = DATABASE + ".confluent_trades";
        stack.connect().kafka().createTopic(topic, 2);
        int schemaId = registry.register(topic + "-value", TRADE_SCHEMA);
        sendFramed(topic, schemaId, TRADE, 0, 500);
        String pythonOutput = producePython(topic, 500, 500);
        assertTrue(pythonOutput.contains("schema ids: " + schemaId + "\n"),
                "Confluent's AvroSerializer registered the same schema under " + topic + "-value and got the same "
                        + "id as the Java registration, " + schemaId + ": " + pythonOutput);
        assertTrue(registry.requests().contains("POST /subjects/" + topic + "-value/versions?normalize=False -> 200"),
                "the Python client registers with POST /subjects/{subject}/versions: " + registry.requests());
        assertEquals(List.of(schemaId), registry.versions(topic + "-value"));
        List<Integer> framedWith = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : stack.connect().kafka().consumeAll(60_000, topic)) {
            framedWith.add(ConfluentFrame.of(record.value()).schemaId());
        }
        assertEquals(1000, framedWith.size());
        assertTrue(framedWith.stream().allMatch(id -> id == schemaId), "every value framed with " + schemaId);

        Map<String, String> config = confluentConnector("confluent-trades", topic);
        config.put("partitioner", "field");
        config.put("partition.fields", "region");
        stack.connect().configureConnector("confluent-trades", config);
        stack.awaitCommittedToEnd("confluent-trades", LANDING_TIMEOUT, topic);
        assertTrue(registry.requests().contains("GET /schemas/ids/" + schemaId + " -> 200"),
                "the connector fetched the writer schema by id: " + registry.requests());

        HiveSql hive = stack.hive();
        long qtySum = 0;
        double priceSum = 0;
        long notes = 0;
        long buys = 0;
        Map<String, Integer> perRegion = new TreeMap<>();
        for (long id = 0; id < 1000; id++) {
            qtySum += qty(id);
            priceSum += price(id);
            notes += note(id) == null ? 0 : 1;
            buys += side(id).equals("BUY") ? 1 : 0;
            perRegion.merge(region(id), 1, Integer::sum);
        }
        assertEquals(List.of(List.of("1000", "1000", Long.toString(qtySum), "0", "999", Double.toString(priceSum),
                Long.toString(notes), Long.toString(buys))), hive.query("select count(*), count(distinct id), "
                + "sum(qty), min(id), max(id), cast(sum(price) as string), count(note), "
                + "sum(case when side = 'BUY' then 1 else 0 end) from " + table));
        List<List<String>> regions = new ArrayList<>();
        perRegion.forEach((region, count) -> regions.add(List.of(region, Integer.toString(count))));
        assertEquals(regions, hive.query("select region, count(*) from " + table + " group by region order by region"));
        assertEquals(List.of(List.of("region=apac"), List.of("region=eu"), List.of("region=us")),
                hive.query("show partitions " + table), "region is a partition column");
        assertEquals(List.of("id bigint", "symbol string", "price double", "qty int", "side string", "note string",
                "at timestamp", "region string"), columns(table),
                "the table is the writer schema less the partition field, which comes last as the partition column");

        List<List<String>> expected = new ArrayList<>();
        for (long id : new long[] {0, 3, 500, 777}) {
            expected.add(Arrays.asList(Long.toString(id), symbol(id), Double.toString(price(id)), side(id),
                    note(id), hiveTimestamp(at(id)), region(id)));
        }
        assertEquals(expected, hive.query("select id, symbol, price, side, note, at, region from " + table
                + " where id in (0, 3, 500, 777) order by id"),
                "ids 0 and 3 framed in Java, 500 and 777 by confluent-kafka's AvroSerializer");
    }

    @Test
    void passthroughAndStructPathLandTheSameRecords() throws Exception {
        String framedTopic = "passthrough-trades";
        String structTopic = "struct-trades";
        stack.connect().kafka().createTopic(framedTopic, 1);
        stack.connect().kafka().createTopic(structTopic, 1);
        int schemaId = registry.register(framedTopic + "-value", TRADE_SCHEMA);
        sendFramed(framedTopic, schemaId, TRADE, 0, 300);
        List<ProducerRecord<byte[], byte[]>> structs = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            structs.add(new ProducerRecord<>(structTopic, key(id),
                    json.fromConnectData(structTopic, CONNECT_TRADE, connectTrade(id))));
        }
        SampleData.sendAll(producer, structs);

        stack.connect().configureConnector("passthrough", confluentConnector("passthrough", framedTopic));
        Map<String, String> structConfig = stack.connectorConfig("struct-path");
        structConfig.put("topics", structTopic);
        structConfig.put("hive.database", DATABASE);
        structConfig.put("batch.max.records", "400");
        stack.connect().configureConnector("struct-path", structConfig);
        stack.awaitCommittedToEnd("passthrough", LANDING_TIMEOUT, framedTopic);
        stack.awaitCommittedToEnd("struct-path", LANDING_TIMEOUT, structTopic);

        HiveSql hive = stack.hive();
        String columns = "id, region, symbol, price, qty, side, note, at";
        List<List<String>> passedThrough = hive.query("select " + columns + " from " + DATABASE
                + ".passthrough_trades order by id");
        List<List<String>> encoded = hive.query("select " + columns + " from " + DATABASE
                + ".struct_trades order by id");
        assertEquals(300, passedThrough.size());
        for (int id = 0; id < 300; id++) {
            assertEquals(Arrays.asList(Long.toString(id), region(id), symbol(id), Double.toString(price(id)),
                    Integer.toString(qty(id)), side(id), note(id), hiveTimestamp(at(id))), passedThrough.get(id),
                    "timestamp-millis reads as the UTC time");
        }
        assertEquals(encoded, passedThrough, "datums passed through and Structs encoded by the sink read the same");
        assertEquals(columns(DATABASE + ".struct_trades"), columns(DATABASE + ".passthrough_trades"));
    }

    @Test
    void olderAndNewerVersionsOfTheSubjectLandSideBySideWithoutReencoding() throws Exception {
        String topic = "versioned-trades";
        stack.connect().kafka().createTopic(topic, 1);
        int v1 = registry.register(topic + "-value", TRADE_SCHEMA);
        int v2 = registry.register(topic + "-value", TRADE_V2_SCHEMA);
        sendFramed(topic, v1, TRADE, 0, 100);
        sendFramed(topic, v2, TRADE_V2, 100, 200); // producers upgraded...
        sendFramed(topic, v1, TRADE, 200, 300); // ...but one still writes the older version

        stack.connect().configureConnector("versioned", confluentConnector("versioned", topic));
        stack.awaitCommittedToEnd("versioned", LANDING_TIMEOUT, topic);

        String table = DATABASE + ".versioned_trades";
        long venues = java.util.stream.LongStream.range(100, 200).filter(id -> venue(id) != null).count();
        assertEquals(List.of(List.of("300", "300", Long.toString(venues))),
                stack.hive().query("select count(*), count(distinct id), count(venue) from " + table));
        assertEquals(List.of(Arrays.asList("5", null), Arrays.asList("151", venue(151)), Arrays.asList("250", null)),
                stack.hive().query("select id, venue from " + table + " where id in (5, 151, 250) order by id"));
        assertTrue(columns(table).contains("venue string"), columns(table).toString());

        // Each file carries the writer schema of its records: nothing was decoded and encoded again.
        java.util.Set<org.apache.avro.Schema> fileSchemas = new java.util.HashSet<>();
        org.apache.hadoop.fs.FileSystem fs = stack.fileSystem();
        var files = fs.listFiles(new org.apache.hadoop.fs.Path(stack.hdfsUri() + "/warehouse/hive-sink/" + DATABASE
                + ".db/versioned_trades"), true);
        while (files.hasNext()) {
            org.apache.hadoop.fs.Path file = files.next().getPath();
            if (file.getName().endsWith(".avro")) {
                try (org.apache.avro.file.DataFileReader<Object> reader = new org.apache.avro.file.DataFileReader<>(
                        new HadoopSeekableInput(fs, file), new org.apache.avro.generic.GenericDatumReader<>())) {
                    fileSchemas.add(reader.getSchema());
                }
            }
        }
        assertEquals(java.util.Set.of(TRADE, TRADE_V2), fileSchemas);
    }

    @Test
    void badInputGoesToTheDeadLetterQueueNamingTheRecordAndTheRestLands() throws Exception {
        String topic = "bad-trades";
        String dlq = "bad-trades-dlq";
        stack.connect().kafka().createTopic(topic, 1);
        stack.connect().kafka().createTopic(dlq, 1);
        int schemaId = registry.register(topic + "-value", TRADE_SCHEMA);
        assertNotEquals(99, schemaId);
        byte[] truncated = datum(trade(TRADE, 1000));
        truncated = Arrays.copyOf(truncated, truncated.length - 3);
        List<byte[]> bad = List.of(
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8),
                ConfluentFrame.frame(99, datum(trade(TRADE, 1001))),
                ConfluentFrame.frame(schemaId, truncated),
                new byte[] {0, 0});
        sendFramed(topic, schemaId, TRADE, 0, 20); // offsets 0-19
        List<ProducerRecord<byte[], byte[]>> badRecords = new ArrayList<>();
        for (int i = 0; i < bad.size(); i++) { // offsets 20-23
            badRecords.add(new ProducerRecord<>(topic, ("bad-" + (20 + i)).getBytes(StandardCharsets.UTF_8),
                    bad.get(i)));
        }
        SampleData.sendAll(producer, badRecords);
        sendFramed(topic, schemaId, TRADE, 20, 40); // offsets 24-43

        Map<String, String> config = confluentConnector("bad-trades", topic);
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlq);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        stack.connect().configureConnector("bad-trades", config);
        stack.awaitCommittedToEnd("bad-trades", LANDING_TIMEOUT, topic);

        List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
        stack.connect().kafka().consumeAll(60_000, dlq).forEach(dead::add);
        assertEquals(4, dead.size(), "dead-letter queue: " + dead);
        dead.sort((a, b) -> Long.compare(Long.parseLong(header(a, "__connect.errors.offset")),
                Long.parseLong(header(b, "__connect.errors.offset"))));
        List<List<String>> phrases = List.of(List.of("magic byte"), List.of("no schema with id 99"),
                List.of("schema id=" + schemaId, "truncated"), List.of("fewer than the 5"));
        for (int i = 0; i < 4; i++) {
            ConsumerRecord<byte[], byte[]> record = dead.get(i);
            int offset = 20 + i;
            assertEquals("bad-" + offset, new String(record.key(), StandardCharsets.UTF_8));
            assertTrue(Arrays.equals(bad.get(i), record.value()), "the dead letter holds the value as it was sent");
            assertEquals(topic, header(record, "__connect.errors.topic"));
            assertEquals(Integer.toString(offset), header(record, "__connect.errors.offset"));
            String message = header(record, "__connect.errors.exception.message");
            assertTrue(message != null && message.contains("Record topic=" + topic + " partition=0 offset=" + offset),
                    "the message names the record: " + message);
            for (String phrase : phrases.get(i)) {
                assertTrue(message.contains(phrase), "offset " + offset + ": '" + phrase + "' in " + message);
            }
        }
        assertEquals(List.of(List.of("40", "0", "39", "40", Long.toString(39 * 40 / 2))), stack.hive().query(
                "select count(*), min(id), max(id), count(distinct id), sum(id) from " + DATABASE + ".bad_trades"),
                "offsets 0-19 and 24-43, ids 0-39, landed; the four bad values did not");
    }

    @Test
    void aRegistryOutageDelaysRecordsButLosesNone() throws Exception {
        String topic = "outage-trades";
        stack.connect().kafka().createTopic(topic, 1);
        registry.register(topic + "-value", TRADE_SCHEMA);
        int schemaId = registry.register(topic + "-value", TRADE_V2_SCHEMA); // an id no task has fetched yet
        List<String> before = registry.requests();
        assertFalse(before.stream().anyMatch(r -> r.startsWith("GET /schemas/ids/" + schemaId + " ")),
                before::toString);
        registry.setDown(true);
        try {
            sendFramed(topic, schemaId, TRADE_V2, 0, 100);
            Map<String, String> config = confluentConnector("outage", topic);
            config.put("schema.registry.retry.attempts", "2");
            config.put("schema.registry.retry.backoff.ms", "100");
            stack.connect().configureConnector("outage", config);

            String refused = "GET /schemas/ids/" + schemaId + " -> 503";
            EmbeddedStack.await("the connector to ask the registry for schema " + schemaId, Duration.ofMinutes(1),
                    () -> registry.requests().contains(refused));
            Thread.sleep(15_000);
            long refusals = registry.requests().stream().filter(refused::equals).count();
            assertTrue(refusals >= 4, "the registry was asked again and again while down (" + refusals + " times)");
            ConnectorStateInfo status = stack.connect().connectorStatus("outage");
            assertEquals("RUNNING", status.connector().state());
            assertFalse(status.tasks().isEmpty());
            for (ConnectorStateInfo.TaskState task : status.tasks()) {
                assertEquals("RUNNING", task.state(), "a registry outage does not fail the task: " + task.trace());
            }
            try (Admin admin = stack.connect().kafka().createAdminClient()) {
                OffsetAndMetadata committed = admin.listConsumerGroupOffsets("connect-outage")
                        .partitionsToOffsetAndMetadata().get().get(new TopicPartition(topic, 0));
                assertTrue(committed == null || committed.offset() == 0, "nothing committed: " + committed);
            }
            if (tablesIn(DATABASE).contains(List.of("outage_trades"))) {
                assertEquals(List.of(List.of("0")),
                        stack.hive().query("select count(*) from " + DATABASE + ".outage_trades"));
            }
        } finally {
            registry.setDown(false);
        }

        stack.awaitCommittedToEnd("outage", LANDING_TIMEOUT, topic);
        assertTrue(registry.requests().contains("GET /schemas/ids/" + schemaId + " -> 200"));
        long venues = 0;
        for (long id = 0; id < 100; id++) {
            venues += venue(id) == null ? 0 : 1;
        }
        assertEquals(List.of(List.of("100", "100", Long.toString(99 * 100 / 2), Long.toString(venues))),
                stack.hive().query("select count(*), count(distinct id), sum(id), count(venue) from " + DATABASE
                        + ".outage_trades"),
                "every record landed once, read with the writer schema the registry gave after the outage");
    }

    /** Properties of a connector reading Confluent-framed Avro from {@code topics}, unpartitioned. */
    private Map<String, String> confluentConnector(String name, String topics) {
        Map<String, String> config = stack.connectorConfig(name);
        config.put("topics", topics);
        config.put("hive.database", DATABASE);
        config.put("batch.max.records", "400");
        config.put("input.format", "confluent-avro");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.remove("value.converter.schemas.enable");
        config.put("schema.registry.url", registry.url());
        return config;
    }

    private void sendFramed(String topic, int schemaId, org.apache.avro.Schema schema, long from, long to)
            throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long id = from; id < to; id++) {
            records.add(new ProducerRecord<>(topic, key(id), ConfluentFrame.frame(schemaId, datum(trade(schema, id)))));
        }
        SampleData.sendAll(producer, records);
    }

    /** The tables of a database; none if the database does not exist yet. */
    private List<List<String>> tablesIn(String database) {
        try {
            return stack.hive().query("show tables in " + database);
        } catch (HiveSqlException noSuchDatabase) {
            assertTrue(noSuchDatabase.getMessage().contains(database), noSuchDatabase.getMessage());
            return List.of();
        }
    }

    /** How Hive shows a timestamp-millis value: its UTC time (the values here all have 123 ms). */
    static String hiveTimestamp(long epochMillis) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(epochMillis));
    }

    private static byte[] key(long id) {
        return Long.toString(id).getBytes(StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** "name type" of each column of a table, partition columns last, as the first part of {@code describe}. */
    private List<String> columns(String table) {
        List<String> columns = new ArrayList<>();
        for (List<String> row : stack.hive().query("describe " + table)) {
            String name = row.get(0) == null ? "" : row.get(0).trim();
            if (name.isEmpty() || name.startsWith("#")) {
                break;
            }
            columns.add(name + " " + row.get(1).trim());
        }
        return columns;
    }

    /** Produces Trades {@code first..first+count-1} with confluent-kafka's AvroSerializer; returns its output. */
    private String producePython(String topic, long first, long count) throws Exception {
        return run(List.of(python.toString(), PRODUCER_SCRIPT.toString(), stack.bootstrapServers(), registry.url(),
                topic, Long.toString(first), Long.toString(count)), Duration.ofMinutes(2));
    }

    /** The Python of a virtual environment under target/ that has confluent-kafka[avro]. */
    private static Path pythonWithConfluentKafka() throws Exception {
        return PythonVenv.at(VENV, List.of("confluent-kafka[avro]==" + CONFLUENT_KAFKA_VERSION)).python();
    }

    private static String run(List<String> command, Duration timeout) throws Exception {
        return PythonVenv.run(command, timeout);
    }
}
