package io.hivesink.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.format.NullableColumns;

/**
 * Seeded records of a schema with every type a table column can have (logical types, nulls, empty and null arrays
 * and maps, nested records, upper-case names), encoded by Avro's own writer; and the canonical form of a record
 * (records as maps of lower-case names, decimals as plain strings, bytes as hex, maps sorted), which a test makes
 * from what a file format's reader gives back to compare the two value by value.
 */
public final class EveryTypeRows {


    public static final Schema SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "Row", "namespace": "test.parquet", "fields": [
              {"name": "id", "type": "long"},
              {"name": "Name", "type": "string"},
              {"name": "score", "type": "double"},
              {"name": "ratio", "type": "float"},
              {"name": "count", "type": "int"},
              {"name": "flag", "type": "boolean"},
              {"name": "note", "type": ["null", "string"]},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "maybe_ints", "type": ["null", {"type": "array", "items": ["null", "int"]}]},
              {"name": "attrs", "type": {"type": "map", "values": "long"}},
              {"name": "labels", "type": [{"type": "map", "values": ["null", "string"]}, "null"]},
              {"name": "payload", "type": "bytes"},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
              {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 4}},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "big", "type": ["null", {"type": "fixed", "name": "Big", "size": 16,
                "logicalType": "decimal", "precision": 30, "scale": 5}]},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "seen", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
              {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "x", "type": "int"},
                {"name": "Y", "type": ["null", "double"]}]}},
              {"name": "extra", "type": ["null", {"type": "record", "name": "Extra", "fields": [
                {"name": "z", "type": "string"}]}]},
              {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "qty", "type": ["null", "int"]}]}}}
            ]}""");

    private static final String[] WORDS = {"", "a", "ask", "bid", "größe", "日本語", "emoji 😀", "tab\tnew"};

    public final List<GenericRecord> records = new ArrayList<>();
    public final EncodedDatums datums = new EncodedDatums();

    public EveryTypeRows(long seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(SCHEMA);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = null;
        for (int i = 0; i < count; i++) {
            GenericRecord row = row(random, i);
            records.add(row);
            bytes.reset();
            encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
            try {
                writer.write(row, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] datum = bytes.toByteArray();
            datums.add(datum, 0, datum.length);
        }
    }

    private static GenericRecord row(SplittableRandom random, int i) {
        GenericRecord row = new GenericData.Record(SCHEMA);
        row.put("id", random.nextBoolean() ? (long) i : random.nextLong());
        row.put("Name", WORDS[random.nextInt(WORDS.length)] + i);
        row.put("score", random.nextInt(10) == 0 ? -0.0 : random.nextDouble() * 1e6 - 5e5);
        row.put("ratio", (float) random.nextDouble());
        row.put("count", random.nextInt());
        row.put("flag", random.nextBoolean());
        row.put("note", random.nextInt(3) == 0 ? null : WORDS[random.nextInt(WORDS.length)]);
        List<String> tags = new ArrayList<>();
        for (int t = random.nextInt(4); t > 0; t--) {
            tags.add(WORDS[random.nextInt(WORDS.length)]);
        }
        row.put("tags", tags);
        if (random.nextInt(4) > 0) {
            List<Integer> ints = new ArrayList<>();
            for (int t = random.nextInt(4); t > 0; t--) {
                ints.add(random.nextInt(3) == 0 ? null : random.nextInt(100));
            }
            row.put("maybe_ints", ints);
        }
        Map<String, Long> attrs = new LinkedHashMap<>();
        for (int t = random.nextInt(3); t > 0; t--) {
            attrs.put("k" + random.nextInt(10), random.nextLong());
        }
        row.put("attrs", attrs);
        if (random.nextBoolean()) {
            Map<String, String> labels = new LinkedHashMap<>();
            for (int t = random.nextInt(3); t > 0; t--) {
                labels.put("l" + random.nextInt(5), random.nextBoolean() ? null : WORDS[random.nextInt(WORDS.length)]);
            }
            row.put("labels", labels);
        }
        byte[] payload = new byte[random.nextInt(20)];
        random.nextBytes(payload);
        row.put("payload", ByteBuffer.wrap(payload));
        Schema kind = SCHEMA.getField("kind").schema();
        row.put("kind", new GenericData.EnumSymbol(kind, kind.getEnumSymbols().get(random.nextInt(3))));
        byte[] code = new byte[4];
        random.nextBytes(code);
        row.put("code", new GenericData.Fixed(SCHEMA.getField("code").schema(), code));
        BigInteger price = BigInteger.valueOf(random.nextLong(-9_999_999_999L, 9_999_999_999L));
        row.put("price", ByteBuffer.wrap(price.toByteArray()));
        if (random.nextInt(4) > 0) {
            BigInteger big = new BigInteger(99, new java.util.Random(random.nextLong()));
            big = random.nextBoolean() ? big.negate() : big;
            row.put("big", new GenericData.Fixed(NullableColumns.nonNull(SCHEMA.getField("big").schema()),
                    signExtended(big, 16)));
        }
        row.put("day", random.nextInt(-200_000, 200_000));
        row.put("at", random.nextLong(-5_000_000_000_000L, 5_000_000_000_000L));
        row.put("seen", random.nextBoolean() ? null : random.nextLong(0, 2_000_000_000_000L));
        GenericRecord inner = new GenericData.Record(SCHEMA.getField("inner").schema());
        inner.put("x", random.nextInt());
        inner.put("Y", random.nextBoolean() ? null : random.nextDouble());
        row.put("inner", inner);
        if (random.nextBoolean()) {
            GenericRecord extra = new GenericData.Record(NullableColumns.nonNull(SCHEMA.getField("extra").schema()));
            extra.put("z", WORDS[random.nextInt(WORDS.length)]);
            row.put("extra", extra);
        }
        Schema itemSchema = SCHEMA.getField("items").schema().getElementType();
        List<GenericRecord> items = new ArrayList<>();
        for (int t = random.nextInt(3); t > 0; t--) {
            GenericRecord item = new GenericData.Record(itemSchema);
            item.put("sku", "sku-" + random.nextInt(50));
            item.put("qty", random.nextBoolean() ? null : random.nextInt(10));
            items.add(item);
        }
        row.put("items", items);
        return row;
    }

    private static byte[] signExtended(BigInteger value, int size) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[size];
        java.util.Arrays.fill(out, value.signum() < 0 ? (byte) -1 : 0);
        System.arraycopy(raw, 0, out, size - raw.length, raw.length);
        return out;
    }

    /**
     * The canonical form of an Avro value of {@code schema} as a Parquet or ORC file holds it: records as maps of
     * lower-case names, -0.0 as 0.0.
     */
    public static Object canonical(Object value, Schema schema) {
        if (value == null) {
            return null;
        }
        Schema type = NullableColumns.nonNull(schema);
        if (type.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
            byte[] unscaled = type.getType() == Schema.Type.FIXED ? ((GenericFixed) value).bytes()
                    : bytes((ByteBuffer) value);
            return new BigDecimal(new BigInteger(unscaled), decimal.getScale()).toPlainString();
        }
        switch (type.getType()) {
            case RECORD: {
                GenericRecord record = (GenericRecord) value;
                Map<String, Object> out = new LinkedHashMap<>();
                for (Schema.Field field : type.getFields()) {
                    out.put(field.name().toLowerCase(Locale.ROOT), canonical(record.get(field.name()),
                            field.schema()));
                }
                return out;
            }
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object element : (List<?>) value) {
                    out.add(canonical(element, type.getElementType()));
                }
                return out;
            }
            case MAP: {
                Map<String, Object> out = new TreeMap<>();
                ((Map<?, ?>) value).forEach((k, v) -> out.put(k.toString(), canonical(v, type.getValueType())));
                return out;
            }
            case STRING:
            case ENUM:
                return value.toString();
            case BYTES:
                return HexFormat.of().formatHex(bytes((ByteBuffer) value));
            case FIXED:
                return HexFormat.of().formatHex(((GenericFixed) value).bytes());
            case DOUBLE:
                return (Double) value + 0.0; // Parquet and ORC files hold -0.0 as 0.0 (format.SignedZeros)
            case FLOAT:
                return (Float) value + 0.0f;
            default:
                return value;
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }
}
