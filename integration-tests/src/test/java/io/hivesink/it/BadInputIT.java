package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.input.ConfluentFrame;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * Each class of bad or odd input through a real worker and its converter, ending in Hive or in the dead-letter queue
 * with a message that names the record and the fix: tombstones under each {@code behavior.on.null.values}; schemaless
 * JSON; partition values that are null, empty, full of characters paths do not like, of an unsupported type, or of
 * another type than the table's column; field names Hive or Avro cannot take; a record larger than
 * {@code batch.max.bytes}; decimals beyond their precision; NaN and infinities; timestamps and dates before 1970
 * and after 9999; a map with a null key; deep nesting. The table in docs/bad-input.md is this test's summary.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class BadInputIT {

    private static final Duration LANDING_TIMEOUT = Duration.ofMinutes(3);
    private static final String DATABASE = "bad_input";
    /** The deepest nesting Hive can plan queries over ({@code HiveTypes.MAX_NESTING}). */
    private static final int DEPTH = 20;

    private EmbeddedStack stack;
    private KafkaProducer<byte[], byte[]> producer;
    private RegistryStandIn registry;
    private final JsonConverter json = SampleData.jsonConverter();

    @BeforeAll
    void startStack(EmbeddedStack embedded) throws IOException {
        stack = embedded;
        producer = stack.producer();
        registry = new RegistryStandIn().start();
    }

    @AfterAll
    void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    static final Schema EVENT = SchemaBuilder.struct().name("Event").field("id", Schema.INT64_SCHEMA).build();

    @Test
    void tombstonesFailByDefaultAreSkippedWithIgnoreAndGoToTheDeadLetterQueueWithDeadLetter() throws Exception {
        String topic = "bad.tombstones";
        stack.connect().kafka().createTopic(topic, 1);
        stack.connect().kafka().createTopic("bad.tombstones-dlq", 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long id = 0; id < 5; id++) {
            byte[] value = id % 2 == 1 ? null : json.fromConnectData(topic, EVENT, new Struct(EVENT).put("id", id));
            records.add(new ProducerRecord<>(topic, key(id), value));
        }
        SampleData.sendAll(producer, records);

        stack.connect().configureConnector("tomb-fail", connector("tomb-fail", topic, "tomb_fail"));
        String trace = stack.awaitFailedTaskTrace("tomb-fail", LANDING_TIMEOUT);
        assertTrue(trace.contains("Record topic=bad.tombstones partition=0 offset=1: the record has a null value (a "
                + "tombstone)") && trace.contains("Set behavior.on.null.values=ignore"), trace);

        Map<String, String> ignore = connector("tomb-ignore", topic, "tomb_ignore");
        ignore.put("behavior.on.null.values", "ignore");
        stack.connect().configureConnector("tomb-ignore", ignore);
        Map<String, String> deadLetter = withDeadLetterQueue(connector("tomb-dead", topic, "tomb_dead"),
                "bad.tombstones-dlq");
        deadLetter.put("behavior.on.null.values", "dead-letter");
        stack.connect().configureConnector("tomb-dead", deadLetter);
        stack.awaitCommittedToEnd("tomb-ignore", LANDING_TIMEOUT, topic);
        stack.awaitCommittedToEnd("tomb-dead", LANDING_TIMEOUT, topic);

        assertEquals(List.of(List.of("0"), List.of("2"), List.of("4")),
                stack.hive().query("select id from " + DATABASE + ".tomb_ignore order by id"));
        assertEquals(List.of(List.of("0"), List.of("2"), List.of("4")),
                stack.hive().query("select id from " + DATABASE + ".tomb_dead order by id"));
        Map<Long, String> dead = deadLetters("bad.tombstones-dlq", 2);
        assertEquals(List.of(1L, 3L), List.copyOf(dead.keySet()), "the tombstones, by offset");
        assertTrue(dead.get(3L).contains("Record topic=bad.tombstones partition=0 offset=3: the record has a null "
                + "value (a tombstone)"), dead.toString());
    }

    @Test
    void schemalessJsonIsSkippedAndLoggedWithErrorsToleranceAllAndNoDeadLetterQueue() throws Exception {
        String topic = "bad.schemaless";
        stack.connect().kafka().createTopic(topic, 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long id = 0; id < 3; id++) {
            records.add(new ProducerRecord<>(topic, key(id), ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8)));
        }
        SampleData.sendAll(producer, records);
        Map<String, String> config = connector("schemaless", topic, "schemaless");
        config.put("value.converter.schemas.enable", "false");
        config.put("errors.tolerance", "all");
        stack.connect().configureConnector("schemaless", config);
        stack.awaitCommittedToEnd("schemaless", LANDING_TIMEOUT, topic); // skipped records are committed past

        Path log = Path.of(System.getProperty("hivesink.log.file"));
        EmbeddedStack.await("the skipped records to be logged", Duration.ofSeconds(30), () -> EmbeddedStack.unchecked(
                () -> Files.readString(log, StandardCharsets.UTF_8)).contains("topic=bad.schemaless partition=0 "
                + "offset=2"));
        List<String> warnings = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains("Skipped a record that cannot land") && line.contains(topic)).toList();
        assertEquals(3, warnings.size(), String.join("\n", warnings));
        assertTrue(warnings.get(0).contains("WARN") && warnings.get(0).contains("Record topic=bad.schemaless "
                + "partition=0 offset=0: the record value has no schema (schemaless data). Use a converter that "
                + "carries schemas"), warnings.get(0));
        assertTrue(warnings.get(2).contains("3 skipped so far"), warnings.get(2));
    }

    static final Schema LEAF = SchemaBuilder.struct().name("Leaf").field("v", Schema.INT32_SCHEMA).build();
    static final Schema ODD = SchemaBuilder.struct().name("Odd")
            .field("id", Schema.INT64_SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("day", org.apache.kafka.connect.data.Date.SCHEMA)
            // keys that may be null: JsonConverter carries them as pairs (string keys would become the text "null")
            .field("tags", SchemaBuilder.map(Schema.OPTIONAL_INT64_SCHEMA, Schema.STRING_SCHEMA).build())
            .field("select", Schema.INT32_SCHEMA)
            .field("date", Schema.STRING_SCHEMA)
            .field("order", Schema.BOOLEAN_SCHEMA)
            .build();

    /** A record with a column {@code deep} that nests {@code levels} structs, the innermost holding {@code leaf}. */
    private static Struct deep(long id, int levels, int leaf) {
        List<Schema> schemas = new ArrayList<>(List.of(LEAF));
        for (int i = 1; i < levels; i++) {
            schemas.add(SchemaBuilder.struct().name("Level" + i).field("n", schemas.get(i - 1)).build());
        }
        Struct value = new Struct(LEAF).put("v", leaf);
        for (int i = 1; i < levels; i++) {
            value = new Struct(schemas.get(i)).put("n", value);
        }
        Schema top = SchemaBuilder.struct().name("Deep").field("id", Schema.INT64_SCHEMA)
                .field("deep", schemas.get(levels - 1)).build();
        return new Struct(top).put("id", id).put("deep", value);
    }

    private static Struct odd(long id, long epochMillis, Map<Long, String> tags) {
        return new Struct(ODD).put("id", id).put("ts", new java.util.Date(epochMillis))
                .put("day", new java.util.Date(Math.floorDiv(epochMillis, 86_400_000L) * 86_400_000L))
                .put("tags", tags).put("select", (int) id * 10)
                .put("date", "d" + id).put("order", id % 2 == 0);
    }

    @Test
    void oddValuesNamesPartitionsAndSizesLandOrGoToTheDeadLetterQueueNamingTheFix() throws Exception {
        List<String> topics = List.of("bad.values", "bad.decimals", "bad.deep", "bad.names", "bad.parts",
                "bad.parttypes", "bad.big");
        for (String topic : topics) {
            stack.connect().kafka().createTopic(topic, 1);
        }
        stack.connect().kafka().createTopic("bad.dlq", 1);

        Map<Long, String> nullKey = new HashMap<>();
        nullKey.put(null, "no key");
        nullKey.put(7L, "v");
        send("bad.values", ODD, odd(0, -1_000_000_000_000L, Map.of(1L, "b")), // 1938
                odd(1, 253_402_300_801_000L, Map.of()), // 10000-01-01T00:00:01Z: Hive cannot read it
                odd(2, 0, nullKey));
        Schema decimal = SchemaBuilder.struct().name("Odd").field("id", Schema.INT64_SCHEMA)
                .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "5").build()).build();
        send("bad.decimals", decimal, new Struct(decimal).put("id", 0L).put("amount", new BigDecimal("123.45")),
                new Struct(decimal).put("id", 1L).put("amount", new BigDecimal("1000.00")));
        send("bad.values", ODD, odd(3, Instant.parse("1000-06-15T12:00:00Z").toEpochMilli(), Map.of()));
        Struct deep = deep(0, DEPTH, 42);
        Struct deeper = deep(1, DEPTH + 1, 43);
        send("bad.deep", deep.schema(), deep);
        send("bad.deep", deeper.schema(), deeper);

        Schema dashed = SchemaBuilder.struct().field("order-id", Schema.INT64_SCHEMA).build();
        Schema digit = SchemaBuilder.struct().field("1st", Schema.INT64_SCHEMA).build();
        Schema cased = SchemaBuilder.struct().field("Id", Schema.INT64_SCHEMA).field("id", Schema.INT64_SCHEMA).build();
        send("bad.names", dashed, new Struct(dashed).put("order-id", 1L));
        send("bad.names", digit, new Struct(digit).put("1st", 1L));
        send("bad.names", cased, new Struct(cased).put("Id", 1L).put("id", 2L));

        Schema region = SchemaBuilder.struct().name("Part").field("id", Schema.INT64_SCHEMA)
                .field("region", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema floatRegion = SchemaBuilder.struct().name("Part").field("id", Schema.INT64_SCHEMA)
                .field("region", Schema.FLOAT64_SCHEMA).build();
        send("bad.parts", region, new Struct(region).put("id", 0L), new Struct(region).put("id", 1L).put("region", ""),
                new Struct(region).put("id", 2L).put("region", "a/b=c%d e\u00e9\u65e5"),
                new Struct(region).put("id", 3L).put("region", "eu"));
        send("bad.parts", floatRegion, new Struct(floatRegion).put("id", 4L).put("region", 1.5));
        Schema intRegion = SchemaBuilder.struct().name("Part").field("id", Schema.INT64_SCHEMA)
                .field("region", Schema.INT32_SCHEMA).build();
        send("bad.parttypes", intRegion, new Struct(intRegion).put("id", 0L).put("region", 7));

        Schema padded = SchemaBuilder.struct().name("Big").field("id", Schema.INT64_SCHEMA)
                .field("pad", Schema.STRING_SCHEMA).build();
        send("bad.big", padded, new Struct(padded).put("id", 0L).put("pad", "x".repeat(300_000)),
                new Struct(padded).put("id", 1L).put("pad", "y"));

        Map<String, String> config = withDeadLetterQueue(connector("odd", String.join(",", topics), null), "bad.dlq");
        config.put("table.bad_parts.partition.fields", "region");
        config.put("table.bad_parttypes.partition.fields", "region");
        config.put("batch.max.bytes", "65536");
        stack.connect().configureConnector("odd", config);
        stack.awaitCommittedToEnd("odd", LANDING_TIMEOUT, topics.toArray(new String[0]));
        // the table's partition column is int now: a string region is another type
        send("bad.parttypes", region, new Struct(region).put("id", 1L).put("region", "abc"));
        send("bad.parttypes", intRegion, new Struct(intRegion).put("id", 2L).put("region", 8));
        stack.awaitCommittedToEnd("odd", LANDING_TIMEOUT, "bad.parttypes");

        List<List<String>> values = stack.hive().query("select id, ts, day, tags, `select`, `date`, `order` from "
                + DATABASE + ".bad_values order by id");
        System.out.println("BadInputIT bad_values: " + values);
        assertEquals(3, values.size(), values.toString());
        assertEquals(List.of("0", "1938-04-24 22:13:20.0", "1938-04-24", "[{\"key\":1,\"value\":\"b\"}]", "0",
                "d0", "true"), values.get(0), "before 1970, a map with optional keys as key-value pairs");
        assertEquals("2", values.get(1).get(0));
        assertTrue(values.get(1).get(3).contains("{\"key\":null,\"value\":\"no key\"}"), values.get(1).toString());
        assertEquals(List.of("3", "1000-06-15 12:00:00.0", "1000-06-15"), values.get(2).subList(0, 3),
                "before the Gregorian calendar, as written (proleptic), not moved by days");
        assertEquals(List.of(List.of("0", "123.45")),
                stack.hive().query("select id, amount from " + DATABASE + ".bad_decimals"));
        assertEquals(List.of(List.of("0", "42")), stack.hive().query("select id, deep" + ".n".repeat(DEPTH - 1)
                + ".v from " + DATABASE + ".bad_deep"), DEPTH + " levels of nesting land and are queried");

        List<List<String>> parts = stack.hive().query("select id, region from " + DATABASE + ".bad_parts order by id");
        assertEquals(List.of(List.of("0", "__HIVE_DEFAULT_PARTITION__"), List.of("1", "__HIVE_DEFAULT_PARTITION__"),
                List.of("2", "a/b=c%d e\u00e9\u65e5"), List.of("3", "eu")), parts,
                "null and empty in Hive's default partition (which Hive names so in a string column), others as sent");
        assertEquals(List.of(List.of("0", "7"), List.of("2", "8")),
                stack.hive().query("select id, region from " + DATABASE + ".bad_parttypes order by id"));
        assertEquals(List.of(List.of("0", "300000"), List.of("1", "1")),
                stack.hive().query("select id, length(pad) from " + DATABASE + ".bad_big order by id"));

        Map<String, String> dead = new TreeMap<>();
        deadLetterRecords("bad.dlq", 8).forEach(r -> dead.put(header(r, "__connect.errors.topic") + "@"
                + header(r, "__connect.errors.offset"), header(r, "__connect.errors.exception.message")));
        assertEquals(List.of("bad.decimals@1", "bad.deep@1", "bad.names@0", "bad.names@1", "bad.names@2",
                "bad.parts@4", "bad.parttypes@1", "bad.values@1"), List.copyOf(dead.keySet()));
        assertTrue(dead.get("bad.values@1").contains("Record topic=bad.values partition=0 offset=1: Timestamp ts = "
                + "+10000-01-01T00:00:01Z is outside the years 0001 to 9999 that Hive reads"),
                dead.get("bad.values@1"));
        assertTrue(dead.get("bad.deep@1").contains("column deep nests 21 levels of records, arrays and maps"),
                dead.get("bad.deep@1"));
        assertTrue(dead.get("bad.decimals@1").contains("Record topic=bad.decimals partition=0 offset=1: Decimal "
                + "amount = 1000.00 has more digits than its type decimal(5,2) allows, so Hive would read it as NULL. "
                + "Round or cap it upstream"), dead.get("bad.decimals@1"));
        assertTrue(dead.get("bad.names@0").contains("Field 'order-id' of bad_names is not a valid Avro/Hive column "
                + "name") && dead.get("bad.names@0").contains("ReplaceField"), dead.get("bad.names@0"));
        assertTrue(dead.get("bad.names@1").contains("Field '1st'"), dead.get("bad.names@1"));
        assertTrue(dead.get("bad.names@2").contains("differ only by case"), dead.get("bad.names@2"));
        assertTrue(dead.get("bad.parts@4").contains("Partition field 'region' has type FLOAT64; a partition field "
                + "must be a string, an integer, a boolean or a Date"), dead.get("bad.parts@4"));
        assertTrue(dead.get("bad.parttypes@1").contains("partition column region is int in the table, but the "
                + "record's value for it is string, which Hive would read as NULL"), dead.get("bad.parttypes@1"));
    }

    static final String MEASURE_SCHEMA = "{\"type\":\"record\",\"name\":\"Measure\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"d\",\"type\":\"double\"},"
            + "{\"name\":\"f\",\"type\":\"float\"},"
            + "{\"name\":\"amount\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,"
            + "\"scale\":2}}]}";

    @Test
    void nanAndInfinitiesLandThroughThePassthroughAndAnOversizedDecimalGoesToTheDeadLetterQueue() throws Exception {
        String topic = "bad.measures";
        stack.connect().kafka().createTopic(topic, 1);
        stack.connect().kafka().createTopic("bad.measures-dlq", 1);
        org.apache.avro.Schema schema = new org.apache.avro.Schema.Parser().parse(MEASURE_SCHEMA);
        int schemaId = registry.register(topic + "-value", MEASURE_SCHEMA);
        double[] doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5};
        float[] floats = {Float.NaN, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, 2.5f};
        long[] amounts = {12_345, -99_999, 99_999, 100_000}; // 123.45, -999.99, 999.99, and 1000.00: too wide
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int id = 0; id < 4; id++) {
            GenericRecord measure = new GenericData.Record(schema);
            measure.put("id", (long) id);
            measure.put("d", doubles[id]);
            measure.put("f", floats[id]);
            measure.put("amount", ByteBuffer.wrap(BigInteger.valueOf(amounts[id]).toByteArray()));
            records.add(new ProducerRecord<>(topic, key(id), ConfluentFrame.frame(schemaId, datum(measure))));
        }
        SampleData.sendAll(producer, records);
        Map<String, String> config = withDeadLetterQueue(connector("measures", topic, "measures"),
                "bad.measures-dlq");
        config.put("input.format", "confluent-avro");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.remove("value.converter.schemas.enable");
        config.put("schema.registry.url", registry.url());
        stack.connect().configureConnector("measures", config);
        stack.awaitCommittedToEnd("measures", LANDING_TIMEOUT, topic);

        assertEquals(List.of(List.of("0", "NaN", "NaN", "123.45"), List.of("1", "Infinity", "-Infinity", "-999.99"),
                List.of("2", "-Infinity", "Infinity", "999.99")),
                stack.hive().query("select id, d, f, amount from " + DATABASE + ".measures order by id"));
        Map<Long, String> dead = deadLetters("bad.measures-dlq", 1);
        assertTrue(dead.get(3L).contains("schema id=" + schemaId) && dead.get(3L).contains("Decimal amount = 1000.00 "
                + "has more digits than its type decimal(5,2) allows"), dead.toString());
    }

    /** A connector of this test's database reading {@code topics}, landing them in {@code table} if not null. */
    private Map<String, String> connector(String name, String topics, String table) {
        Map<String, String> config = stack.connectorConfig(name);
        config.put("topics", topics);
        config.put("hive.database", DATABASE);
        if (table != null) {
            config.put("hive.table.map", topics + ":" + table);
        }
        return config;
    }

    private static Map<String, String> withDeadLetterQueue(Map<String, String> config, String topic) {
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", topic);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        return config;
    }

    private void send(String topic, Schema schema, Struct... values) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Struct value : values) {
            records.add(new ProducerRecord<>(topic, null, json.fromConnectData(topic, schema, value)));
        }
        SampleData.sendAll(producer, records);
    }

    /** The dead-letter queue's records: the original offset to the error message. */
    private Map<Long, String> deadLetters(String topic, int count) {
        Map<Long, String> dead = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> record : deadLetterRecords(topic, count)) {
            dead.put(Long.parseLong(header(record, "__connect.errors.offset")),
                    header(record, "__connect.errors.exception.message"));
        }
        return dead;
    }

    private List<ConsumerRecord<byte[], byte[]>> deadLetterRecords(String topic, int count) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        stack.connect().kafka().consume(count, 60_000, topic).forEach(records::add);
        assertEquals(count, records.size(), "records in " + topic);
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static byte[] key(long id) {
        return Long.toString(id).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] datum(GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
