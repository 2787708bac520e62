package io.hivesink.avro.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * Property: for generated Connect schemas and values of every type, the compiled encoder writes exactly the bytes of
 * converting the value to a GenericRecord and encoding it with Avro's GenericDatumWriter. Seeded, so a failure names
 * the seed that reproduces it.
 */
class StructEncoderPropertyTest {

    private static final int SCHEMAS = 400;
    private static final int VALUES_PER_SCHEMA = 25;

    @Test
    void compiledEncoderIsByteIdenticalToGenericDatumWriter() throws Exception {
        for (int seed = 0; seed < SCHEMAS; seed++) {
            Random random = new Random(seed);
            Generator generator = new Generator(random);
            Schema connect = generator.struct(0, "Root" + seed);
            org.apache.avro.Schema avro = ConnectSchemaMapper.toAvro(connect, "gen", "root", Set.of());
            StructEncoder encoder = StructEncoder.compile(connect, avro);
            GenericDatumWriter<GenericData.Record> reference = new GenericDatumWriter<>(avro);
            ByteSink sink = new ByteSink(64);
            for (int v = 0; v < VALUES_PER_SCHEMA; v++) {
                Struct value = (Struct) generator.value(connect);
                byte[] expected = referenceBytes(reference, ConnectValueConverter.convertRecord(value, avro));
                sink.reset();
                encoder.encode(value, sink);
                assertArrayEquals(expected, sink.toByteArray(),
                        "seed " + seed + ", value " + v + ", schema " + avro + ", value " + value);
            }
        }
    }

    @Test
    void extremeNumbersAndStringsEncodeIdentically() throws Exception {
        Schema connect = SchemaBuilder.struct().name("Edge")
                .field("i", Schema.INT32_SCHEMA).field("l", Schema.INT64_SCHEMA)
                .field("f", Schema.FLOAT32_SCHEMA).field("d", Schema.FLOAT64_SCHEMA)
                .field("s", Schema.STRING_SCHEMA).build();
        org.apache.avro.Schema avro = ConnectSchemaMapper.toAvro(connect, "gen", "edge", Set.of());
        StructEncoder encoder = StructEncoder.compile(connect, avro);
        GenericDatumWriter<GenericData.Record> reference = new GenericDatumWriter<>(avro);
        int[] ints = {0, -1, 1, 63, 64, -64, -65, Integer.MAX_VALUE, Integer.MIN_VALUE};
        long[] longs = {0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 35, -(1L << 49)};
        float[] floats = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.MIN_VALUE,
            Float.intBitsToFloat(0x7fc00001)};
        double[] doubles = {0d, -0d, Double.NaN, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, 1e308};
        String[] strings = {"", "a", "x".repeat(63), "x".repeat(64), "y".repeat(1000), "\u00e9t\u00e9",
            "\ud83d\ude00 emoji", "unpaired \ud800 surrogate", "\u0000nul", "\u4e16\u754c".repeat(40)};
        ByteSink sink = new ByteSink(16);
        for (int i = 0; i < 60; i++) {
            Struct value = new Struct(connect).put("i", ints[i % ints.length]).put("l", longs[i % longs.length])
                    .put("f", floats[i % floats.length]).put("d", doubles[i % doubles.length])
                    .put("s", strings[i % strings.length]);
            sink.reset();
            encoder.encode(value, sink);
            assertArrayEquals(referenceBytes(reference, ConnectValueConverter.convertRecord(value, avro)),
                    sink.toByteArray(), value.toString());
        }
    }

    @Test
    void nullInARequiredFieldNamesItsPath() {
        Schema inner = SchemaBuilder.struct().name("Inner").field("x", Schema.STRING_SCHEMA).build();
        Schema outer = SchemaBuilder.struct().name("Outer").field("id", Schema.INT32_SCHEMA)
                .field("inner", inner).build();
        org.apache.avro.Schema avro = ConnectSchemaMapper.toAvro(outer, "gen", "outer", Set.of());
        StructEncoder encoder = StructEncoder.compile(outer, avro);
        Struct value = new Struct(outer).put("id", 1); // never validated, as a converter may hand it over
        DataException e = assertThrows(DataException.class, () -> encoder.encode(value, new ByteSink(16)));
        assertEquals("Field inner is null but its schema is not optional.", e.getMessage());
    }

    private static byte[] referenceBytes(GenericDatumWriter<GenericData.Record> writer, GenericData.Record record)
            throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        writer.write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /** Random Connect schemas (nested up to 3 levels) and values for them. */
    static final class Generator {
        private final Random random;
        private int names;

        Generator(Random random) {
            this.random = random;
        }

        Schema struct(int depth, String name) {
            SchemaBuilder builder = SchemaBuilder.struct().name("gen." + name + "_" + names++);
            int fields = 1 + random.nextInt(depth == 0 ? 10 : 4);
            for (int i = 0; i < fields; i++) {
                builder.field("f" + i, schema(depth + 1));
            }
            return builder.build();
        }

        Schema schema(int depth) {
            int kinds = depth >= 3 ? 13 : 17;
            SchemaBuilder builder;
            switch (random.nextInt(kinds)) {
                case 0 -> builder = SchemaBuilder.int8();
                case 1 -> builder = SchemaBuilder.int16();
                case 2 -> builder = SchemaBuilder.int32();
                case 3 -> builder = SchemaBuilder.int64();
                case 4 -> builder = SchemaBuilder.float32();
                case 5 -> builder = SchemaBuilder.float64();
                case 6 -> builder = SchemaBuilder.bool();
                case 7 -> builder = SchemaBuilder.string();
                case 8 -> builder = SchemaBuilder.bytes();
                case 9 -> builder = Decimal.builder(random.nextInt(5))
                        .parameter("connect.decimal.precision", Integer.toString(5 + random.nextInt(20)));
                case 10 -> builder = Date.builder();
                case 11 -> builder = Time.builder();
                case 12 -> builder = Timestamp.builder();
                case 13 -> builder = SchemaBuilder.array(schema(depth + 1));
                case 14 -> builder = SchemaBuilder.map(Schema.STRING_SCHEMA, schema(depth + 1));
                case 15 -> builder = SchemaBuilder.map(random.nextBoolean() ? Schema.INT32_SCHEMA
                        : Schema.OPTIONAL_STRING_SCHEMA, schema(depth + 1));
                default -> {
                    Schema nested = struct(depth, "S");
                    builder = SchemaBuilder.struct().name(nested.name());
                    nested.fields().forEach(f -> builder.field(f.name(), f.schema()));
                }
            }
            int mode = random.nextInt(10);
            if (mode < 3) {
                builder.optional();
            }
            if ((mode == 3 || mode == 4) && builder.type() != Schema.Type.STRUCT) {
                if (mode == 4) {
                    builder.optional();
                }
                builder.defaultValue(value(builder.build()));
            }
            return builder.build();
        }

        Object value(Schema schema) {
            if (schema.isOptional() && random.nextInt(4) == 0) {
                return null;
            }
            String logical = schema.name();
            if (Decimal.LOGICAL_NAME.equals(logical)) {
                int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
                int precision = Integer.parseInt(schema.parameters().get("connect.decimal.precision"));
                BigInteger unscaled = new BigInteger(precision * 3, random).mod(BigInteger.TEN.pow(precision));
                return new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), scale);
            }
            if (Date.LOGICAL_NAME.equals(logical)) {
                return new java.util.Date(86_400_000L * (random.nextInt(100_000) - 50_000));
            }
            if (Time.LOGICAL_NAME.equals(logical)) {
                return new java.util.Date(random.nextInt(86_400_000));
            }
            if (Timestamp.LOGICAL_NAME.equals(logical)) {
                return new java.util.Date(random.nextLong() % 10_000_000_000_000L);
            }
            switch (schema.type()) {
                case INT8:
                    return (byte) random.nextInt();
                case INT16:
                    return (short) random.nextInt();
                case INT32:
                    return random.nextBoolean() ? random.nextInt() : random.nextInt(200) - 100;
                case INT64:
                    return random.nextBoolean() ? random.nextLong() : (long) random.nextInt(200) - 100;
                case FLOAT32:
                    return random.nextInt(20) == 0 ? Float.NaN : (random.nextFloat() - 0.5f) * 1e6f;
                case FLOAT64:
                    return random.nextInt(20) == 0 ? Double.NEGATIVE_INFINITY : random.nextGaussian() * 1e9;
                case BOOLEAN:
                    return random.nextBoolean();
                case STRING:
                    return string();
                case BYTES: {
                    byte[] bytes = new byte[random.nextInt(20)];
                    random.nextBytes(bytes);
                    return random.nextBoolean() ? bytes : ByteBuffer.wrap(bytes);
                }
                case ARRAY: {
                    List<Object> list = new ArrayList<>();
                    int n = random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        list.add(value(schema.valueSchema()));
                    }
                    return list;
                }
                case MAP: {
                    Map<Object, Object> map = new LinkedHashMap<>();
                    int n = random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        Object key = schema.keySchema().type() == Schema.Type.STRING ? string() : random.nextInt();
                        map.put(key, value(schema.valueSchema()));
                    }
                    return map;
                }
                case STRUCT: {
                    Struct struct = new Struct(schema);
                    for (org.apache.kafka.connect.data.Field field : schema.fields()) {
                        // a field with a default is sometimes left unset, so the default is what gets encoded
                        if (field.schema().defaultValue() == null || random.nextBoolean()) {
                            struct.put(field, value(field.schema()));
                        }
                    }
                    return struct;
                }
                default:
                    throw new IllegalStateException(schema.type().toString());
            }
        }

        private String string() {
            int kind = random.nextInt(5);
            int length = random.nextInt(kind == 0 ? 1 : 80);
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < length; i++) {
                switch (kind) {
                    case 1 -> s.append((char) (0x20 + random.nextInt(0x5f)));
                    case 2 -> s.append((char) (0xa0 + random.nextInt(0x2000)));
                    case 3 -> s.appendCodePoint(0x1f600 + random.nextInt(50));
                    default -> s.append((char) random.nextInt(0xd800));
                }
            }
            return s.toString();
        }
    }
}
