package io.hivesink.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.input.ConfluentAvroInput;
import io.hivesink.input.ConfluentFrame;
import io.hivesink.input.ConnectInput;
import io.hivesink.input.UnknownSchemaException;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.TableRouter;
import io.hivesink.route.TimePartitioner;

/** Confluent-framed Avro passed through versus the same records as Connect Structs. */
class PassthroughTest {

    static final int SCHEMA_ID = 7;
    static final Schema WRITER = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"region\",\"type\":\"string\"},"
            + "{\"name\":\"amount\",\"type\":\"double\"},"
            + "{\"name\":\"paid\",\"type\":\"boolean\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
            + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
            + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
            + "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
            + "{\"name\":\"line\",\"type\":{\"type\":\"record\",\"name\":\"Line\",\"fields\":["
            + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"sku\",\"type\":\"bytes\"}]}}]}");

    /** What a converter such as Confluent's AvroConverter makes of WRITER. */
    static final org.apache.kafka.connect.data.Schema LINE = SchemaBuilder.struct().name("shop.Line")
            .field("qty", org.apache.kafka.connect.data.Schema.INT32_SCHEMA)
            .field("sku", org.apache.kafka.connect.data.Schema.BYTES_SCHEMA).build();
    static final org.apache.kafka.connect.data.Schema ORDER = SchemaBuilder.struct().name("shop.Order")
            .field("id", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
            .field("region", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
            .field("amount", org.apache.kafka.connect.data.Schema.FLOAT64_SCHEMA)
            .field("paid", org.apache.kafka.connect.data.Schema.BOOLEAN_SCHEMA)
            .field("note", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
            .field("at", Timestamp.SCHEMA)
            .field("tags", SchemaBuilder.array(org.apache.kafka.connect.data.Schema.STRING_SCHEMA).build())
            .field("attrs", SchemaBuilder.map(org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                    org.apache.kafka.connect.data.Schema.INT64_SCHEMA).build())
            .field("line", LINE).build();

    static final long DAY = 86_400_000L;
    static final long START = 1_795_000_000_000L;
    static final ExecutorService POOL = Executors.newFixedThreadPool(2);

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    static GenericRecord order(int i) {
        GenericRecord line = new GenericData.Record(WRITER.getField("line").schema());
        line.put("qty", i % 5);
        line.put("sku", ByteBuffer.wrap(new byte[] {(byte) i, 1, 2}));
        GenericRecord order = new GenericData.Record(WRITER);
        order.put("id", (long) i);
        order.put("region", i % 3 == 0 ? "eu" : "us");
        order.put("amount", i * 1.25);
        order.put("paid", i % 2 == 0);
        order.put("note", i % 4 == 0 ? null : "note " + i);
        order.put("at", START + i * (DAY / 4));
        order.put("tags", List.of("t" + i, "x"));
        order.put("attrs", Map.of("a", (long) i));
        order.put("line", line);
        return order;
    }

    static Struct struct(GenericRecord order) {
        GenericRecord line = (GenericRecord) order.get("line");
        return new Struct(ORDER).put("id", order.get("id")).put("region", order.get("region"))
                .put("amount", order.get("amount")).put("paid", order.get("paid")).put("note", order.get("note"))
                .put("at", new java.util.Date((Long) order.get("at"))).put("tags", order.get("tags"))
                .put("attrs", order.get("attrs"))
                .put("line", new Struct(LINE).put("qty", line.get("qty"))
                        .put("sku", ((ByteBuffer) line.get("sku")).array()));
    }

    static byte[] framed(GenericRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(WRITER).write(record, encoder);
            encoder.flush();
            return ConfluentFrame.frame(SCHEMA_ID, out.toByteArray());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static SinkRecord bytesRecord(long offset, byte[] value) {
        return new SinkRecord("orders", 0, null, null, org.apache.kafka.connect.data.Schema.OPTIONAL_BYTES_SCHEMA,
                value, offset);
    }

    static Schema registry(int id) {
        if (id == SCHEMA_ID) {
            return WRITER;
        }
        throw new UnknownSchemaException(id, "The schema registry has no schema with id " + id + ".");
    }

    /** Partitioned by a field (region) and by day of a timestamp field (at), as users do. */
    static TableLayouts layouts() {
        Map<String, String> settings = Map.of("hive.metastore.uris", "thrift://unused:9083",
                "partition.fields", "region", "partition.time.field", "at",
                "partition.time.pattern", "dt=yyyy-MM-dd");
        FieldPartitioner byRegion = new FieldPartitioner();
        byRegion.configure(settings);
        TimePartitioner byDay = new TimePartitioner();
        byDay.configure(settings);
        return new TableLayouts("db", table -> List.of(byRegion, byDay), TableAdmission.ANY);
    }

    static BatchBuffer buffer(io.hivesink.input.RecordInput input, boolean rejectBadRecords) {
        return new BatchBuffer(input, byTopic(), layouts(), "t0", POOL, 3, rejectBadRecords, null);
    }

    /** Per partition path, the records of its file as Hive reads them: through the table schema. */
    static Map<String, List<Object>> landed(Batch batch, List<Schema> fileSchemas) throws IOException {
        Map<String, List<Object>> byPartition = new TreeMap<>();
        try (ParallelContainerWriter writer = new ParallelContainerWriter(POOL, 2, "snappy", -1, 1 << 10, Map.of())) {
            for (RecordGroup group : batch.groups()) {
                ByteArrayOutputStream file = new ByteArrayOutputStream();
                writer.write(group.layout().avroSchema(), group.datums(), file);
                GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(null, group.layout().tableSchema());
                try (DataFileStream<GenericRecord> in = new DataFileStream<>(new ByteArrayInputStream(
                        file.toByteArray()), reader)) {
                    fileSchemas.add(in.getSchema());
                    List<Object> records =
                            byPartition.computeIfAbsent(group.partition().path(), p -> new ArrayList<>());
                    for (GenericRecord record : in) {
                        records.add(plain(record));
                    }
                }
            }
        }
        return byPartition;
    }

    /** A value with Avro's runtime types (Utf8, enums, ByteBuffer, GenericRecord) made plain Java. */
    static Object plain(Object value) {
        if (value instanceof GenericRecord record) {
            Map<String, Object> fields = new TreeMap<>();
            for (Schema.Field field : record.getSchema().getFields()) {
                fields.put(field.name(), plain(record.get(field.pos())));
            }
            return fields;
        }
        if (value instanceof CharSequence || value instanceof GenericData.EnumSymbol) {
            return value.toString();
        }
        if (value instanceof ByteBuffer bytes) {
            byte[] copy = new byte[bytes.remaining()];
            bytes.duplicate().get(copy);
            return Arrays.toString(copy);
        }
        if (value instanceof List<?> list) {
            return list.stream().map(PassthroughTest::plain).toList();
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> plainMap = new TreeMap<>();
            map.forEach((k, v) -> plainMap.put(k.toString(), plain(v)));
            return plainMap;
        }
        return value;
    }

    static String pathOf(GenericRecord order) {
        return "region=" + order.get("region") + "/dt=" + java.time.LocalDate.ofInstant(
                java.time.Instant.ofEpochMilli((Long) order.get("at")), java.time.ZoneOffset.UTC);
    }

    @Test
    void passedThroughDatumsLandAsTheSameRecordsAsStructs() throws IOException {
        BatchBuffer structs = buffer(ConnectInput.INSTANCE, false);
        BatchBuffer datums = buffer(new ConfluentAvroInput(PassthroughTest::registry, null), false);
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            GenericRecord order = order(i);
            structs.add(new SinkRecord("orders", 0, null, null, ORDER, struct(order), i), 0);
            values.add(framed(order));
            datums.add(bytesRecord(i, values.get(i)), 0);
        }
        List<Schema> structFiles = new ArrayList<>();
        List<Schema> datumFiles = new ArrayList<>();
        Map<String, List<Object>> fromStructs = landed(structs.drain(), structFiles);
        Batch datumBatch = datums.drain();
        Map<String, List<Object>> fromDatums = landed(datumBatch, datumFiles);

        assertEquals(fromStructs, fromDatums);
        java.util.Set<String> paths = new java.util.TreeSet<>();
        for (int i = 0; i < 200; i++) {
            paths.add(pathOf(order(i)));
        }
        assertEquals(paths, fromDatums.keySet());
        assertTrue(paths.size() > 50, "records spread over regions and days: " + paths);
        assertEquals(200, fromDatums.values().stream().mapToInt(List::size).sum());
        for (Schema file : datumFiles) {
            assertEquals(WRITER, file, "passed-through files carry the producers' writer schema");
        }
        TableLayout layout = datumBatch.groups().get(0).layout();
        assertTrue(layout.tableSchema().getField("region") == null && layout.tableSchema().getField("at") != null,
                "the table's columns leave the partition field out: " + layout.tableSchema());
        assertTrue(layout instanceof PassthroughLayout, "nothing is encoded: " + layout);

        // The bytes in the files are the datums as they came: concatenated in order, they are the group's datums.
        RecordGroup first = datumBatch.groups().get(0);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 200; i++) {
            GenericRecord order = order(i);
            if (pathOf(order).equals(first.partition().path())) {
                expected.write(values.get(i), ConfluentFrame.HEADER_BYTES, values.get(i).length
                        - ConfluentFrame.HEADER_BYTES);
            }
        }
        ByteArrayOutputStream copied = new ByteArrayOutputStream();
        for (int d = 0; d < first.datums().count(); d++) {
            copied.write(first.datums().page(d), first.datums().start(d), first.datums().length(d));
        }
        assertTrue(Arrays.equals(expected.toByteArray(), copied.toByteArray()));
    }

    @Test
    void badInputIsSetAsideNamingTheRecordAndTheRestLands() {
        BatchBuffer buffer = buffer(new ConfluentAvroInput(PassthroughTest::registry, null), true);
        byte[] good = framed(order(1));
        byte[] unknownId = good.clone();
        unknownId[4] = 99;
        List<SinkRecord> records = List.of(
                bytesRecord(0, good),
                bytesRecord(1, "{\"id\": 1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                bytesRecord(2, unknownId),
                bytesRecord(3, Arrays.copyOf(good, good.length - 2)),
                bytesRecord(4, Arrays.copyOf(good, good.length + 1)),
                bytesRecord(5, new byte[] {0, 0}),
                bytesRecord(6, null),
                new SinkRecord("orders", 0, null, null, ORDER, struct(order(7)), 7),
                bytesRecord(8, framed(order(8))));
        for (SinkRecord record : records) {
            buffer.add(record, 0);
        }
        Batch batch = buffer.drain();
        assertEquals(2, batch.records(), "the two good records land");
        assertEquals(Map.of(new TopicPartition("orders", 0), 9L), batch.nextOffsets(), "every offset is accounted for");
        List<String> errors = batch.rejected().stream().map(r -> r.error().getMessage()).toList();
        assertEquals(7, errors.size(), errors.toString());
        for (int i = 0; i < errors.size(); i++) {
            assertTrue(errors.get(i).startsWith("Record topic=orders partition=0 offset="
                    + batch.rejected().get(i).record().kafkaOffset()), errors.get(i));
        }
        assertTrue(errors.get(0).contains("magic byte") && errors.get(0).contains("JSON"), errors.get(0));
        assertTrue(errors.get(1).contains("no schema with id 99"), errors.get(1));
        assertTrue(errors.get(2).contains("schema id=7") && errors.get(2).contains("truncated"), errors.get(2));
        assertTrue(errors.get(3).contains("schema id=7") && errors.get(3).contains("1 bytes left over"),
                errors.get(3));
        assertTrue(errors.get(4).contains("fewer than the 5"), errors.get(4));
        assertTrue(errors.get(5).contains("tombstone"), errors.get(5));
        assertTrue(errors.get(6).contains("ByteArrayConverter"), errors.get(6));
    }

    @Test
    void withoutAReporterTheFirstBadDatumStopsTheBatch() {
        BatchBuffer buffer = buffer(new ConfluentAvroInput(PassthroughTest::registry, null), false);
        byte[] good = framed(order(1));
        buffer.add(bytesRecord(0, good), 0);
        buffer.add(bytesRecord(1, Arrays.copyOf(good, good.length - 1)), 0);
        DataException e = assertThrows(DataException.class, buffer::drain);
        assertTrue(e.getMessage().startsWith("Record topic=orders partition=0 offset=1 schema id=7"), e.getMessage());
    }

    @Test
    void aRegistryOutageLeavesTheRecordUntakenUntilItIsDeliveredAgain() {
        boolean[] down = {true};
        IntFunction<Schema> flaky = id -> {
            if (down[0]) {
                throw new RetriableException("No schema registry gave schema " + id);
            }
            return registry(id);
        };
        BatchBuffer buffer = buffer(new ConfluentAvroInput(flaky, null), true);
        SinkRecord record = bytesRecord(0, framed(order(3)));
        RetriableException outage = assertThrows(RetriableException.class, () -> buffer.add(record, 0));
        assertTrue(outage.getMessage().startsWith("Record topic=orders partition=0 offset=0 schema id=7: No schema "
                + "registry gave schema 7"), outage.getMessage());
        assertTrue(buffer.isEmpty(), "not taken, so not skipped as a duplicate when Connect delivers it again");
        down[0] = false;
        assertTrue(buffer.add(record, 0));
        Batch batch = buffer.drain();
        assertEquals(1, batch.records());
        assertTrue(batch.rejected().isEmpty());
        assertFalse(batch.groups().isEmpty());
    }

    @Test
    void aWriterSchemaHiveCannotHoldIsABadRecordThatSaysWhy() throws IOException {
        Schema odd = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Odd\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"v\",\"type\":[\"string\",\"long\"]}]}");
        io.hivesink.metastore.HiveTables tables = new io.hivesink.metastore.HiveTables(
                new io.hivesink.metastore.InMemoryMetastore(), "db", "file:/w",
                table -> io.hivesink.config.TableConfig.of(Map.of(), null));
        TableLayouts layouts = new TableLayouts("db", table -> List.of(),
                (table, schema, spec) -> tables.ensureTable(table, schema, spec));
        BatchBuffer buffer = new BatchBuffer(new ConfluentAvroInput(id -> odd, null), byTopic(),
                layouts, "t0", POOL, 3, true, null);
        for (long offset = 0; offset < 2; offset++) {
            GenericRecord record = new GenericData.Record(odd);
            record.put("id", offset);
            record.put("v", "text");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(odd).write(record, encoder);
            encoder.flush();
            buffer.add(bytesRecord(offset, ConfluentFrame.frame(3, out.toByteArray())), 0);
        }
        Batch batch = buffer.drain();
        assertEquals(2, batch.rejected().size());
        String error = batch.rejected().get(1).error().getMessage();
        assertTrue(error.startsWith("Record topic=orders partition=0 offset=1 schema id=3: Table orders cannot hold "
                + "records of writer schema Odd: Hive reads only unions of null and one type"), error);
    }

    @Test
    void routingByAFieldReadsItFromTheDatum() {
        TableRouter router = new TableRouter(Map.of(), null, "region", "sales_${field}", java.util.Set.of());
        BatchBuffer buffer = new BatchBuffer(new ConfluentAvroInput(PassthroughTest::registry, "region"), router,
                layouts(), "t0", POOL, 3, false, null);
        for (int i = 0; i < 6; i++) {
            buffer.add(bytesRecord(i, framed(order(i))), 0);
        }
        assertEquals(2, buffer.tableRecordCount("sales_eu"));
        assertEquals(4, buffer.tableRecordCount("sales_us"));
        Batch batch = buffer.drain();
        assertEquals(List.of("sales_eu", "sales_us"), List.copyOf(new java.util.TreeSet<>(batch.tables())));
    }

    /** Routes each record to the table named after its topic. */
    static TableRouter byTopic() {
        return new TableRouter(Map.of(), null, null, "${topic}", Set.of());
    }
}
