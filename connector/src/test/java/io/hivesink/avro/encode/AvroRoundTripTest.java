package io.hivesink.avro.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.config.AvroCodecs;

class AvroRoundTripTest {

    static final org.apache.kafka.connect.data.Schema INNER = SchemaBuilder.struct().name("x.Inner")
            .field("label", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
            .field("n", org.apache.kafka.connect.data.Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    static final org.apache.kafka.connect.data.Schema ALL_TYPES = SchemaBuilder.struct().name("x.AllTypes")
            .field("i8", org.apache.kafka.connect.data.Schema.INT8_SCHEMA)
            .field("i16", org.apache.kafka.connect.data.Schema.INT16_SCHEMA)
            .field("i32", org.apache.kafka.connect.data.Schema.INT32_SCHEMA)
            .field("i64", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
            .field("f32", org.apache.kafka.connect.data.Schema.FLOAT32_SCHEMA)
            .field("f64", org.apache.kafka.connect.data.Schema.FLOAT64_SCHEMA)
            .field("flag", org.apache.kafka.connect.data.Schema.BOOLEAN_SCHEMA)
            .field("text", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
            .field("blob", org.apache.kafka.connect.data.Schema.BYTES_SCHEMA)
            .field("maybe", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
            .field("withDefault", SchemaBuilder.string().defaultValue("dflt").build())
            .field("optionalWithDefault", SchemaBuilder.int32().optional().defaultValue(5).build())
            .field("money", Decimal.builder(3).parameter("connect.decimal.precision", "9").build())
            .field("day", Date.SCHEMA)
            .field("time", Time.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("list", SchemaBuilder.array(org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA).build())
            .field("dict", SchemaBuilder.map(org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                    org.apache.kafka.connect.data.Schema.FLOAT64_SCHEMA).build())
            .field("byId", SchemaBuilder.map(org.apache.kafka.connect.data.Schema.INT32_SCHEMA,
                    org.apache.kafka.connect.data.Schema.STRING_SCHEMA).build())
            .field("inner", INNER)
            .field("inners", SchemaBuilder.array(INNER).build())
            .field("maybeInner", SchemaBuilder.struct().name("x.Inner2").optional()
                    .field("v", org.apache.kafka.connect.data.Schema.INT32_SCHEMA).build())
            .build();

    static Struct sample(int i) {
        Map<String, Double> dict = new LinkedHashMap<>();
        dict.put("a", 1.5 * i);
        Map<Integer, String> byId = new LinkedHashMap<>();
        byId.put(i, "v" + i);
        List<String> list = new ArrayList<>();
        list.add("x" + i);
        list.add(null);
        return new Struct(ALL_TYPES)
                .put("i8", (byte) -i)
                .put("i16", (short) (300 + i))
                .put("i32", 70_000 + i)
                .put("i64", 5_000_000_000L + i)
                .put("f32", 1.25f * i)
                .put("f64", 2.5 * i)
                .put("flag", i % 2 == 0)
                .put("text", "h\u00e9llo \u4e16\u754c " + i)
                .put("blob", new byte[] {1, 2, (byte) i})
                .put("maybe", i % 2 == 0 ? null : "present")
                .put("money", new BigDecimal("-12345.678").add(BigDecimal.valueOf(i)))
                .put("day", new java.util.Date(86_400_000L * (20_000 + i)))
                .put("time", new java.util.Date(3_600_000L + i))
                .put("ts", new java.util.Date(1_700_000_000_000L + i))
                .put("list", list)
                .put("dict", dict)
                .put("byId", byId)
                .put("inner", new Struct(INNER).put("label", "in" + i))
                .put("inners", List.of(new Struct(INNER).put("label", "a").put("n", 7L)))
                .put("maybeInner", null);
    }

    static Schema avroSchema() {
        return ConnectSchemaMapper.toAvro(ALL_TYPES, "ns", "all_types", Set.of());
    }

    @Test
    void mapsEveryConnectTypeToTheAvroTypeHiveReads() {
        Schema avro = avroSchema();
        assertEquals(Schema.Type.INT, avro.getField("i8").schema().getType());
        assertEquals("int8", avro.getField("i8").schema().getProp("connect.type"));
        assertEquals(Schema.Type.LONG, avro.getField("i64").schema().getType());
        assertEquals(LogicalTypes.decimal(9, 3), avro.getField("money").schema().getLogicalType());
        assertEquals(LogicalTypes.date(), avro.getField("day").schema().getLogicalType());
        assertEquals(LogicalTypes.timeMillis(), avro.getField("time").schema().getLogicalType());
        assertEquals(LogicalTypes.timestampMillis(), avro.getField("ts").schema().getLogicalType());
        assertEquals(Schema.Type.UNION, avro.getField("maybe").schema().getType());
        assertEquals(Schema.Type.NULL, avro.getField("maybe").schema().getTypes().get(0).getType());
        assertEquals(org.apache.avro.JsonProperties.NULL_VALUE, avro.getField("maybe").defaultVal());
        assertEquals("dflt", avro.getField("withDefault").defaultVal());
        // a non-null default puts its type first in the union, as Avro requires
        assertEquals(Schema.Type.INT, avro.getField("optionalWithDefault").schema().getTypes().get(0).getType());
        assertEquals(5, avro.getField("optionalWithDefault").defaultVal());
        assertEquals(Schema.Type.MAP, avro.getField("dict").schema().getType());
        Schema byId = avro.getField("byId").schema();
        assertEquals(Schema.Type.ARRAY, byId.getType());
        assertEquals(List.of("key", "value"),
                byId.getElementType().getFields().stream().map(Schema.Field::name).toList());
        assertEquals(Schema.Type.RECORD, avro.getField("inner").schema().getType());
        // the same Connect struct used twice gets one Avro name per use, so the schema stays valid
        new Schema.Parser().parse(avro.toString());
    }

    @Test
    void excludesPartitionFields() {
        Schema avro = ConnectSchemaMapper.toAvro(ALL_TYPES, "ns", "t", Set.of("text", "i8"));
        assertNull(avro.getField("text"));
        assertNull(avro.getField("i8"));
        assertEquals(ALL_TYPES.fields().size() - 2, avro.getFields().size());
    }

    @ParameterizedTest
    @ValueSource(strings = {AvroCodecs.NULL, AvroCodecs.DEFLATE, AvroCodecs.SNAPPY, AvroCodecs.ZSTANDARD,
            AvroCodecs.BZIP2, AvroCodecs.XZ})
    void encodedRecordsWrittenInParallelReadBackInOrder(String codec) throws Exception {
        Schema avro = avroSchema();
        EncodedDatums datums = encode(avro, 500);
        int count = datums.count();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, codec, -1, 4096, Map.of())) {
            long written = writer.write(avro, datums, out);
            assertEquals(out.size(), written);
        } finally {
            pool.shutdownNow();
        }

        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(
                new SeekableByteArrayInput(out.toByteArray()), new GenericDatumReader<>())) {
            assertEquals(codec, reader.getMetaString("avro.codec"));
            int i = 0;
            for (GenericRecord record : reader) {
                assertRecord(i++, record);
            }
            assertEquals(count, i);
        }
    }

    static EncodedDatums encode(Schema avro, int count) {
        StructEncoder encoder = StructEncoder.compile(ALL_TYPES, avro);
        EncodedDatums datums = new EncodedDatums();
        ByteSink sink = new ByteSink(256);
        for (int i = 0; i < count; i++) {
            sink.reset();
            encoder.encode(sample(i), sink);
            datums.add(sink.array(), 0, sink.size());
        }
        return datums;
    }

    private static void assertRecord(int i, GenericRecord r) {
        assertEquals((int) (byte) -i, r.get("i8"));
        assertEquals(300 + i, r.get("i16"));
        assertEquals(70_000 + i, r.get("i32"));
        assertEquals(5_000_000_000L + i, r.get("i64"));
        assertEquals(1.25f * i, r.get("f32"));
        assertEquals(2.5 * i, r.get("f64"));
        assertEquals(i % 2 == 0, r.get("flag"));
        assertEquals("h\u00e9llo \u4e16\u754c " + i, r.get("text").toString());
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2, (byte) i}), r.get("blob"));
        assertEquals(i % 2 == 0 ? null : "present", r.get("maybe") == null ? null : r.get("maybe").toString());
        assertEquals("dflt", r.get("withDefault").toString(), "an unset field with a default is written as it");
        assertEquals(5, r.get("optionalWithDefault"));
        BigDecimal money = new BigDecimal(new java.math.BigInteger(bytes((ByteBuffer) r.get("money"))), 3);
        assertEquals(new BigDecimal("-12345.678").add(BigDecimal.valueOf(i)), money);
        assertEquals(20_000 + i, r.get("day"));
        assertEquals(3_600_000 + i, r.get("time"));
        assertEquals(1_700_000_000_000L + i, r.get("ts"));
        assertEquals("[x" + i + ", null]", r.get("list").toString());
        assertEquals(1.5 * i, ((Map<?, ?>) r.get("dict")).get(new org.apache.avro.util.Utf8("a")));
        GenericRecord entry = (GenericRecord) ((List<?>) r.get("byId")).get(0);
        assertEquals(i, entry.get("key"));
        assertEquals("v" + i, entry.get("value").toString());
        assertEquals("in" + i, ((GenericRecord) r.get("inner")).get("label").toString());
        assertNull(((GenericRecord) r.get("inner")).get("n"));
        assertEquals(7L, ((GenericRecord) ((List<?>) r.get("inners")).get(0)).get("n"));
        assertNull(r.get("maybeInner"));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @Test
    void decimalThatDoesNotFitItsPrecisionIsRejectedWithTheFieldNamed() {
        Schema avro = avroSchema();
        Struct tooBig = sample(1).put("money", new BigDecimal("1234567.891"));
        DataException e = assertThrows(DataException.class,
                () -> StructEncoder.compile(ALL_TYPES, avro).encode(tooBig, new ByteSink(64)));
        assertTrue(e.getMessage().contains("money"), e.getMessage());
        assertTrue(e.getMessage().contains("decimal(9,3) allows, so Hive would read it as NULL"), e.getMessage());
    }

    @Test
    void timestampsAndDatesOutsideTheYearsHiveReadsAreRejectedAndTheEdgesLand() {
        org.apache.kafka.connect.data.Schema schema = org.apache.kafka.connect.data.SchemaBuilder.struct()
                .name("When").field("at", org.apache.kafka.connect.data.Timestamp.SCHEMA)
                .field("on", org.apache.kafka.connect.data.Date.SCHEMA).build();
        Schema avro = ConnectSchemaMapper.toAvro(schema, "ns", "when", Set.of());
        StructEncoder encoder = StructEncoder.compile(schema, avro);
        long first = -62_135_596_800_000L; // 0001-01-01
        long last = 253_402_300_799_999L; // 9999-12-31T23:59:59.999
        long lastDay = 253_402_214_400_000L; // 9999-12-31
        encoder.encode(when(schema, first, first), new ByteSink(64));
        encoder.encode(when(schema, last, lastDay), new ByteSink(64));
        encoder.encode(when(schema, -1_000_000_000_000L, -86_400_000L), new ByteSink(64)); // 1938, 1969
        DataException late = assertThrows(DataException.class,
                () -> encoder.encode(when(schema, last + 1, lastDay), new ByteSink(64)));
        assertTrue(late.getMessage().contains("Timestamp at = +10000-01-01T00:00:00Z is outside the years 0001 to "
                + "9999 that Hive reads"), late.getMessage());
        DataException early = assertThrows(DataException.class,
                () -> encoder.encode(when(schema, first, first - 86_400_000L), new ByteSink(64)));
        assertTrue(early.getMessage().contains("Date on = 0000-12-31T00:00:00Z"), early.getMessage());
        assertThrows(DataException.class,
                () -> ConnectValueConverter.convertRecord(when(schema, last + 1, lastDay), avro));
    }

    private static Struct when(org.apache.kafka.connect.data.Schema schema, long at, long on) {
        return new Struct(schema).put("at", new java.util.Date(at)).put("on", new java.util.Date(on));
    }

    @Test
    void nonStructValueSchemaIsRejected() {
        DataException e = assertThrows(DataException.class, () -> ConnectSchemaMapper.toAvro(
                org.apache.kafka.connect.data.Schema.STRING_SCHEMA, "ns", "t", Set.of()));
        assertTrue(e.getMessage().contains("must be a Struct"), e.getMessage());
    }

    @Test
    void fieldNamesHiveCannotHoldAreRejected() {
        org.apache.kafka.connect.data.Schema dashed = SchemaBuilder.struct()
                .field("bad-name", org.apache.kafka.connect.data.Schema.STRING_SCHEMA).build();
        DataException e = assertThrows(DataException.class, () -> ConnectSchemaMapper.toAvro(dashed, "ns", "t",
                Set.of()));
        assertTrue(e.getMessage().contains("bad-name"), e.getMessage());
    }

    @Test
    void encodedDatumsHoldRecordsInPagesWithoutLosingOrder() {
        EncodedDatums datums = new EncodedDatums();
        byte[] big = new byte[EncodedDatums.PAGE_SIZE + 10];
        big[0] = 42;
        datums.add("first".getBytes(StandardCharsets.UTF_8), 0, 5);
        datums.add(big, 0, big.length);
        datums.add("third".getBytes(StandardCharsets.UTF_8), 0, 5);
        assertEquals(3, datums.count());
        assertEquals(10 + big.length, datums.bytes());
        assertEquals("first", new String(datums.page(0), datums.start(0), datums.length(0), StandardCharsets.UTF_8));
        assertEquals(42, datums.page(1)[datums.start(1)]);
        assertEquals(big.length, datums.length(1));
        assertEquals("third", new String(datums.page(2), datums.start(2), datums.length(2), StandardCharsets.UTF_8));
    }
}
