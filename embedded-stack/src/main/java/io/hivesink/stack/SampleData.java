package io.hivesink.stack;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Deterministic sample records: every value is a function of the record id, so a test can compute what Hive must
 * answer. Orders carry every Connect type; customers are a plain dimension.
 */
public final class SampleData {

    public static final List<String> REGIONS = List.of("eu", "us", "apac");
    static final String DECIMAL_PRECISION = "connect.decimal.precision";

    public static final Schema ADDRESS = SchemaBuilder.struct().name("io.hivesink.sample.Address")
            .field("street", Schema.STRING_SCHEMA)
            .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
            .build();

    public static final Schema ORDER = SchemaBuilder.struct().name("io.hivesink.sample.Order")
            .field("id", Schema.INT64_SCHEMA)
            .field("region", Schema.STRING_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .field("tiny", Schema.INT8_SCHEMA)
            .field("small", Schema.INT16_SCHEMA)
            .field("price", Schema.FLOAT64_SCHEMA)
            .field("weight", Schema.FLOAT32_SCHEMA)
            .field("paid", Schema.BOOLEAN_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("status", SchemaBuilder.string().defaultValue("NEW").build())
            .field("priority", SchemaBuilder.int32().optional().defaultValue(5).build())
            .field("raw", Schema.BYTES_SCHEMA)
            .field("amount", Decimal.builder(2).parameter(DECIMAL_PRECISION, "12").build())
            .field("day", org.apache.kafka.connect.data.Date.SCHEMA)
            .field("at", Time.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("shipped_ts", Timestamp.builder().optional().build())
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
            .field("codes", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
            .field("address", ADDRESS)
            .build();

    public static final Schema CUSTOMER = SchemaBuilder.struct().name("io.hivesink.sample.Customer")
            .field("id", Schema.INT64_SCHEMA)
            .field("region", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("vip", Schema.BOOLEAN_SCHEMA)
            .field("since", org.apache.kafka.connect.data.Date.SCHEMA)
            .build();

    /** 2026-11-22T10:15:30.123Z: the base of every order's timestamps. */
    public static final long BASE_EPOCH_MILLIS = Instant.parse("2026-11-22T10:15:30.123Z").toEpochMilli();
    public static final LocalDate BASE_DAY = LocalDate.of(2026, 11, 22);

    private SampleData() {
    }

    public static String region(long id) {
        return REGIONS.get((int) (id % REGIONS.size()));
    }

    public static int qty(long id) {
        return (int) (id % 10) + 1;
    }

    public static BigDecimal amount(long id) {
        return BigDecimal.valueOf(id * 1_000 + 99, 2); // id * 10 + 0.99
    }

    public static String note(long id) {
        return id % 4 == 0 ? null : "note \u00e9\u00e8 #" + id;
    }

    /** Odd ids leave status unset, so the schema default NEW applies. */
    public static String status(long id) {
        return id % 2 == 1 ? "NEW" : "SHIPPED";
    }

    public static LocalDate day(long id) {
        return BASE_DAY.minusDays(id % 30);
    }

    public static int timeOfDayMillis(long id) {
        return (int) ((id * 3_600_123L) % 86_400_000L);
    }

    public static long tsMillis(long id) {
        return BASE_EPOCH_MILLIS + id * 1_000;
    }

    public static Struct order(long id) {
        Struct address = new Struct(ADDRESS).put("street", id + " Main Street");
        if (id % 3 != 0) {
            address.put("zip", 10_000 + (int) id);
        }
        Map<String, Integer> attrs = new LinkedHashMap<>();
        attrs.put("size", (int) (id % 5));
        attrs.put("color", (int) (id % 7));
        Map<Integer, String> codes = new LinkedHashMap<>();
        codes.put((int) id, "c" + id);
        Struct order = new Struct(ORDER)
                .put("id", id)
                .put("region", region(id))
                .put("qty", qty(id))
                .put("tiny", (byte) (id % 100))
                .put("small", (short) (id % 30_000))
                .put("price", id * 0.5)
                .put("weight", (float) (id * 0.25))
                .put("paid", id % 2 == 0)
                .put("note", note(id))
                .put("raw", ("raw-" + id).getBytes(StandardCharsets.UTF_8))
                .put("amount", amount(id))
                .put("day", Date.from(day(id).atStartOfDay(ZoneOffset.UTC).toInstant()))
                .put("at", new Date(timeOfDayMillis(id)))
                .put("ts", new Date(tsMillis(id)))
                .put("shipped_ts", id % 5 == 0 ? null : new Date(tsMillis(id) + 86_400_000L))
                .put("tags", List.of("t" + id, "all"))
                .put("attrs", attrs)
                .put("codes", codes)
                .put("address", address);
        if (id % 2 == 0) {
            order.put("status", "SHIPPED");
        }
        if (id % 7 == 0) {
            order.put("priority", (int) (id % 3));
        }
        return order;
    }

    /** Orders whose id is a multiple of 7 set priority to id % 3; the others leave it unset: the default 5. */
    public static int priority(long id) {
        return id % 7 == 0 ? (int) (id % 3) : 5;
    }

    public static Struct customer(long id) {
        return new Struct(CUSTOMER)
                .put("id", id)
                .put("region", region(id))
                .put("name", "Customer " + id)
                .put("vip", id % 10 == 0)
                .put("since", Date.from(BASE_DAY.minusDays(id).atStartOfDay(ZoneOffset.UTC).toInstant()));
    }

    public static JsonConverter jsonConverter() {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "true", "converter.type", "value"));
        return converter;
    }

    /**
     * Produces records {@code fromId..toId-1} as JSON with schemas, keyed by id, spread over the topic's partitions.
     */
    public static void produce(KafkaProducer<byte[], byte[]> producer, String topic, Schema schema, long fromId,
            long toId, java.util.function.LongFunction<Struct> record) throws Exception {
        JsonConverter converter = jsonConverter();
        List<ProducerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
        for (long id = fromId; id < toId; id++) {
            byte[] value = converter.fromConnectData(topic, schema, record.apply(id));
            records.add(new ProducerRecord<>(topic, Long.toString(id).getBytes(StandardCharsets.UTF_8), value));
        }
        sendAll(producer, records);
    }

    /**
     * Settings of a test producer of raw bytes. Not idempotent: the idempotent producer can fail a batch for good
     * (OutOfOrderSequenceException) when its first sends to a topic created a moment before meet
     * NOT_LEADER_OR_FOLLOWER; one request in flight keeps retries in order.
     */
    public static Map<String, Object> producerSettings() {
        return Map.of(
                org.apache.kafka.clients.producer.ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArraySerializer.class.getName(),
                org.apache.kafka.clients.producer.ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArraySerializer.class.getName(),
                org.apache.kafka.clients.producer.ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all",
                org.apache.kafka.clients.producer.ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    }

    /** Sends the records and waits until the broker has each one: a send that fails fails the caller. */
    public static void sendAll(KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent =
                new java.util.ArrayList<>(records.size());
        for (ProducerRecord<byte[], byte[]> record : records) {
            sent.add(producer.send(record));
        }
        producer.flush();
        for (java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> ack : sent) {
            ack.get();
        }
    }
}
