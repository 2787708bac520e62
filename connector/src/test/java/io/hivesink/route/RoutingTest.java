package io.hivesink.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

class RoutingTest {

    @Test
    void topicNamesBecomeHiveSafeTableNames() {
        assertEquals("shop_orders_v1", TableRouter.hiveSafeName("shop.orders-v1"));
        assertEquals("mixedcase", TableRouter.hiveSafeName("MixedCase"));
        assertEquals("_2024_events", TableRouter.hiveSafeName("2024-events"));
        assertEquals(128, TableRouter.hiveSafeName("x".repeat(300)).length());
    }

    @Test
    void explicitMappingWinsOverTheTopicName() {
        TableRouter router = new TableRouter(Map.of("customers", "dim_customers"), null, null, "${topic}", Set.of());
        assertEquals("dim_customers", router.tableFor("customers"));
        assertEquals("orders_eu", router.tableFor("orders.eu"));
    }

    static final Schema SCHEMA = SchemaBuilder.struct()
            .field("country", Schema.OPTIONAL_STRING_SCHEMA)
            .field("year", Schema.INT32_SCHEMA)
            .field("day", org.apache.kafka.connect.data.Date.SCHEMA)
            .field("amount", Schema.FLOAT64_SCHEMA)
            .build();

    static SinkRecord record(String topic, int partition, Struct value, Long timestamp) {
        return new SinkRecord(topic, partition, null, null, value.schema(), value, 7L, timestamp,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME);
    }

    static Map<String, String> settings(String... keyValues) {
        Map<String, String> settings = new HashMap<>();
        settings.put("hive.metastore.uris", "thrift://localhost:9083");
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return settings;
    }

    static PartitionScheme scheme(Schema schema, String... keyValues) {
        Map<String, String> settings = settings(keyValues);
        return PartitionScheme.bind(Partitioners.create(
                io.hivesink.config.HiveSinkConfig.parseKeys(settings).partitioning().partitioners(), settings), schema);
    }

    @Test
    void fieldPartitionerGivesValuesTypesAndPaths() {
        PartitionScheme partitioner = scheme(SCHEMA, "partition.fields", "country,year,day");
        assertEquals(List.of("country", "year", "day"), partitioner.spec().names());
        assertEquals(List.of("string", "int", "date"), partitioner.spec().hiveTypes());
        assertEquals(java.util.Set.of("country", "year", "day"), partitioner.fieldsAsColumns());
        Struct value = new Struct(SCHEMA).put("country", "F/R").put("year", 2026)
                .put("day", new java.util.Date(86_400_000L * 20_414)).put("amount", 1.0);
        PartitionValues partition = partitioner.partitionOf(record("t", 0, value, null), value);
        assertEquals(List.of("F/R", "2026", "2025-11-22"), partition.values());
        assertEquals("country=F%2FR/year=2026/day=2025-11-22", partition.path());

        Struct nullCountry = new Struct(SCHEMA).put("year", 1).put("day", new java.util.Date(0)).put("amount", 1.0);
        PartitionValues defaulted = partitioner.partitionOf(record("t", 0, nullCountry, null), nullCountry);
        assertEquals("__HIVE_DEFAULT_PARTITION__", defaulted.values().get(0));
        assertTrue(defaulted.path().startsWith("country=__HIVE_DEFAULT_PARTITION__/"));
    }

    @Test
    void partitionFieldsMustExistAndBeScalar() {
        DataException missing = assertThrows(DataException.class,
                () -> scheme(SCHEMA, "partition.fields", "region"));
        assertTrue(missing.getMessage().contains("'region'"), missing.getMessage());
        assertTrue(missing.getMessage().contains("country"), missing.getMessage());
        DataException floating = assertThrows(DataException.class,
                () -> scheme(SCHEMA, "partition.fields", "amount"));
        assertTrue(floating.getMessage().contains("FLOAT64"), floating.getMessage());
    }

    static final Schema EVENTS = SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("at", org.apache.kafka.connect.data.Timestamp.builder().optional().build())
            .field("epoch_s", Schema.OPTIONAL_INT64_SCHEMA)
            .field("when_text", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    /** 2026-11-22T23:30:00Z */
    static final long LATE_EVENING = 1_795_390_200_000L;

    @Test
    void timePartitionerReadsTheRecordTimestampInAZone() {
        Struct value = new Struct(EVENTS).put("id", 1L);
        PartitionScheme utc = scheme(EVENTS, "partitioner", "time", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        assertEquals(List.of("dt", "hr"), utc.spec().names());
        assertEquals(List.of("string", "string"), utc.spec().hiveTypes());
        assertEquals("dt=2026-11-22/hr=23", utc.partitionOf(record("t", 0, value, LATE_EVENING), value).path());
        PartitionScheme paris = scheme(EVENTS, "partitioner", "time", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH",
                "partition.time.zone", "Europe/Paris");
        assertEquals("dt=2026-11-23/hr=00", paris.partitionOf(record("t", 0, value, LATE_EVENING), value).path());
        assertEquals("dt=__HIVE_DEFAULT_PARTITION__/hr=__HIVE_DEFAULT_PARTITION__",
                utc.partitionOf(record("t", 0, value, null), value).path(), "no timestamp: default partition");
    }

    @Test
    void timePartitionerReadsTimestampEpochAndTextFields() {
        Struct value = new Struct(EVENTS).put("id", 1L).put("at", new java.util.Date(LATE_EVENING))
                .put("epoch_s", LATE_EVENING / 1000).put("when_text", "22/11/2026 23:30");
        SinkRecord record = record("t", 0, value, 0L);
        assertEquals("day=2026-11-22", scheme(EVENTS, "partitioner", "time", "partition.time.field", "at",
                "partition.time.pattern", "day=yyyy-MM-dd").partitionOf(record, value).path());
        assertEquals("y=2026/m=11", scheme(EVENTS, "partitioner", "time", "partition.time.field", "epoch_s",
                "partition.time.field.unit", "seconds", "partition.time.pattern", "y=yyyy/m=MM")
                .partitionOf(record, value).path());
        PartitionScheme text = scheme(EVENTS, "partitioner", "time", "partition.time.field", "when_text",
                "partition.time.field.format", "dd/MM/yyyy HH:mm", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH",
                "partition.time.zone", "Asia/Kolkata");
        assertEquals("dt=2026-11-22/hr=23", text.partitionOf(record, value).path(), "text read in the zone");
        Struct bad = new Struct(EVENTS).put("id", 2L).put("when_text", "yesterday");
        DataException unparsable = assertThrows(DataException.class,
                () -> text.partitionOf(record("t", 0, bad, 0L), bad));
        assertTrue(unparsable.getMessage().contains("'yesterday'"), unparsable.getMessage());
        PartitionScheme iso = scheme(EVENTS, "partitioner", "time", "partition.time.field", "when_text");
        Struct isoValue = new Struct(EVENTS).put("id", 3L).put("when_text", "2026-11-22T23:30:00-02:00");
        assertEquals("dt=2026-11-23", iso.partitionOf(record("t", 0, isoValue, 0L), isoValue).path());
        DataException wrongType = assertThrows(DataException.class, () -> scheme(SCHEMA, "partitioner", "time",
                "partition.time.field", "amount"));
        assertTrue(wrongType.getMessage().contains("FLOAT64"), wrongType.getMessage());
    }

    @Test
    void theTimePartitionerGivesTheEventTimeItPartitionedBy() {
        PartitionScheme text = scheme(EVENTS, "partitioner", "field,time", "partition.time.field", "when_text",
                "partition.time.field.format", "dd/MM/yyyy HH:mm", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH",
                "partition.time.zone", "Asia/Kolkata");
        Struct first = new Struct(EVENTS).put("id", 1L).put("when_text", "22/11/2026 23:30");
        Struct second = new Struct(EVENTS).put("id", 2L).put("when_text", "23/11/2026 01:00");
        SinkRecord one = record("t", 0, first, 0L);
        SinkRecord two = new SinkRecord("t", 0, null, null, EVENTS, second, 8L, 0L, TimestampType.CREATE_TIME);
        text.partitionOf(one, first);
        long kolkata = 19_800_000L; // UTC+05:30
        assertEquals(LATE_EVENING - kolkata, text.eventTime(one, first), "the time the partition was chosen by");
        assertEquals(LATE_EVENING - kolkata + 90 * 60_000L, text.eventTime(two, second),
                "asked without its partition first: read again, not the last record's");
        Struct noTime = new Struct(EVENTS).put("id", 3L);
        SinkRecord three = new SinkRecord("t", 0, null, null, EVENTS, noTime, 9L, 0L, TimestampType.CREATE_TIME);
        text.partitionOf(three, noTime);
        assertEquals(Partitioner.NO_EVENT_TIME, text.eventTime(three, noTime), "no time: none, as its partition");

        PartitionScheme stamped = scheme(EVENTS, "partitioner", "time");
        assertEquals(LATE_EVENING, stamped.eventTime(record("t", 1, first, LATE_EVENING), first));
        PartitionScheme byField = scheme(SCHEMA, "partition.fields", "country");
        Struct value = new Struct(SCHEMA).put("country", "FR").put("year", 2026).put("day", new java.util.Date(0))
                .put("amount", 1.0);
        assertEquals(Partitioner.NO_EVENT_TIME, byField.eventTime(record("t", 0, value, LATE_EVENING), value),
                "a partitioner not by time gives none");
    }

    @Test
    void kafkaAndComposedPartitionersGiveColumnsInOrder() {
        Struct value = new Struct(SCHEMA).put("country", "FR").put("year", 2026)
                .put("day", new java.util.Date(0)).put("amount", 1.0);
        PartitionScheme composed = scheme(SCHEMA, "partitioner", "time,field,kafka", "partition.fields", "country");
        assertEquals(List.of("dt", "country", "kafka_topic", "kafka_partition"), composed.spec().names());
        assertEquals(List.of("string", "string", "string", "int"), composed.spec().hiveTypes());
        assertEquals("dt=2026-11-22/country=FR/kafka_topic=shop.orders/kafka_partition=3",
                composed.partitionOf(record("shop.orders", 3, value, LATE_EVENING), value).path());
    }

    @Test
    void aPartitionColumnMayNotShadowADataField() {
        Schema withDt = SchemaBuilder.struct().field("dt", Schema.STRING_SCHEMA).build();
        DataException clash = assertThrows(DataException.class, () -> scheme(withDt, "partitioner", "time"));
        assertTrue(clash.getMessage().contains("'dt'"), clash.getMessage());
    }

    /** A custom partitioner, as a user would write one: buckets by a hash of the id. */
    public static final class IdBuckets implements Partitioner {
        private int buckets;

        @Override
        public void configure(Map<String, String> settings) {
            buckets = Integer.parseInt(settings.getOrDefault("id.buckets", "4"));
        }

        @Override
        public Binding bind(Schema valueSchema) {
            PartitionSpec spec = new PartitionSpec(List.of("bucket"), List.of("int"));
            return new Binding() {
                @Override
                public PartitionSpec spec() {
                    return spec;
                }

                @Override
                public void values(SinkRecord record, Struct value, List<String> out) {
                    out.add(Integer.toString((int) Math.floorMod(value.getInt64("id"), (long) buckets)));
                }
            };
        }
    }

    @Test
    void aCustomPartitionerIsLoadedByClassNameAndConfigured() {
        Struct value = new Struct(EVENTS).put("id", 10L);
        PartitionScheme custom = scheme(EVENTS, "partitioner", IdBuckets.class.getName(), "id.buckets", "3");
        assertEquals("bucket=1", custom.partitionOf(record("t", 0, value, 0L), value).path());
        org.apache.kafka.common.config.ConfigException unknown = assertThrows(
                org.apache.kafka.common.config.ConfigException.class,
                () -> scheme(EVENTS, "partitioner", "com.example.Missing"));
        assertTrue(unknown.getMessage().contains("plugin"), unknown.getMessage());
    }

    @Test
    void topicsRouteThroughARegexAndATemplate() {
        TableRouter router = new TableRouter(Map.of("prod.sales.special.v1", "special"),
                java.util.regex.Pattern.compile("prod\\.(\\w+)\\.(.+)\\.v\\d+"), null, "${1}_${2}", Set.of("ledger"));
        assertEquals("sales_orders", router.tableFor("prod.sales.orders.v2"));
        assertEquals("hr_pay_roll", router.tableFor("prod.hr.Pay-Roll.v1"));
        assertEquals("special", router.tableFor("prod.sales.special.v1"), "the explicit map wins");
        DataException unmatched = assertThrows(DataException.class, () -> router.tableFor("test.sales.orders"));
        assertTrue(unmatched.getMessage().contains("route.topic.regex"), unmatched.getMessage());
        TableRouter toLedger = new TableRouter(Map.of(), null, null, "ledger", Set.of("ledger"));
        assertThrows(DataException.class, () -> toLedger.tableFor("anything"));
    }

    @Test
    void aFieldFansOneTopicOutToManyTables() {
        Schema schema = SchemaBuilder.struct().field("kind", Schema.OPTIONAL_STRING_SCHEMA)
                .field("n", Schema.INT32_SCHEMA).build();
        TableRouter router = new TableRouter(Map.of(), null, "kind", "events_${field}", Set.of());
        Struct click = new Struct(schema).put("kind", "Click.V2").put("n", 1);
        Struct view = new Struct(schema).put("kind", "view").put("n", 2);
        assertEquals("events_click_v2", router.tableFor(record("events", 0, click, null), click));
        assertEquals("events_view", router.tableFor(record("events", 0, view, null), view));
        Struct none = new Struct(schema).put("n", 3);
        DataException missing = assertThrows(DataException.class,
                () -> router.tableFor(record("events", 0, none, null), none));
        assertTrue(missing.getMessage().contains("'kind' is null"), missing.getMessage());
    }
}
