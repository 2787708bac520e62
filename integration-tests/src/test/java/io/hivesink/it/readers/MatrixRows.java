package io.hivesink.it.readers;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The reader matrix's data set: rows built to break readers, as Avro records a producer frames (Confluent's wire
 * format), in two schema versions (v2 adds a column). Each value is a function of the row's id, drawn from a list of
 * edge values per column (NaN, -0.0 and infinities; every integer's limits; decimals at their precision; dates
 * before 1582 and in year 9999; empty, long, non-ASCII and control-character strings; empty and null arrays and
 * maps; nulls at every depth; struct fields in camelCase and UPPER case). The rows are kept here as plain Java values
 * ({@link #value}), which {@link Oracle} computes the answers from: nothing here uses the connector's code.
 */
final class MatrixRows {

    /** Rows of schema v1 (ids 0-23), before the evolution; v2 rows are ids 24-35. */
    static final int V1_ROWS = 24;
    static final int ROWS = 36;

    private static final String INNER = "{\"type\": \"record\", \"name\": \"Inner\", \"fields\": ["
            + "{\"name\": \"userId\", \"type\": [\"null\", \"string\"], \"default\": null},"
            + "{\"name\": \"UPPER\", \"type\": [\"null\", \"int\"], \"default\": null},"
            + "{\"name\": \"Deep\", \"type\": [\"null\", {\"type\": \"record\", \"name\": \"DeepRec\", \"fields\": ["
            + "{\"name\": \"deepName\", \"type\": [\"null\", \"long\"], \"default\": null},"
            + "{\"name\": \"ALLCAPS\", \"type\": [\"null\", \"string\"], \"default\": null}]}], \"default\": null}]}";
    private static final String ITEM = "{\"type\": \"record\", \"name\": \"Item\", \"fields\": ["
            + "{\"name\": \"skuId\", \"type\": \"string\"}, {\"name\": \"qty\", \"type\": \"int\"}]}";
    private static final String V1_FIELDS = "{\"name\": \"id\", \"type\": \"long\"},"
            + "{\"name\": \"bucket\", \"type\": \"string\"},"
            + optional("i32", "\"int\"") + "," + optional("i64", "\"long\"") + ","
            + optional("f32", "\"float\"") + "," + optional("f64", "\"double\"") + ","
            + optional("flag", "\"boolean\"") + "," + optional("s", "\"string\"") + ","
            + optional("b", "\"bytes\"") + ","
            + optional("dec9", "{\"type\": \"bytes\", \"logicalType\": \"decimal\", \"precision\": 9, \"scale\": 2}")
            + "," + optional("dec38", "{\"type\": \"bytes\", \"logicalType\": \"decimal\", \"precision\": 38, "
            + "\"scale\": 6}") + ","
            + optional("day", "{\"type\": \"int\", \"logicalType\": \"date\"}") + ","
            + optional("ts", "{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}") + ","
            + optional("topCamel", "\"string\"") + ","
            + optional("arr", "{\"type\": \"array\", \"items\": [\"null\", \"string\"]}") + ","
            + optional("m", "{\"type\": \"map\", \"values\": [\"null\", \"long\"]}") + ","
            + optional("rec", INNER) + ","
            + optional("items", "{\"type\": \"array\", \"items\": " + ITEM + "}");

    static final Schema V1 = new Schema.Parser().parse(record(V1_FIELDS));
    static final Schema V2 = new Schema.Parser().parse(record(V1_FIELDS + "," + optional("added", "\"string\"")));

    private static final String LONG_STRING = "x".repeat(10_000);

    /** Each column's edge values; row {@code id} takes {@code values.get(id % size)} (null is SQL NULL). */
    private static final Map<String, List<Object>> EDGES = new LinkedHashMap<>();

    static {
        EDGES.put("i32", list(Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE, null, 42));
        EDGES.put("i64", list(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE, null, 1_234_567_890_123L));
        EDGES.put("f32", list(Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1.5f, null,
                Float.MAX_VALUE, -Float.MIN_VALUE));
        EDGES.put("f64", list(1.0, Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, null,
                Double.MAX_VALUE, Double.MIN_VALUE, 1e100));
        EDGES.put("flag", list(true, false, null));
        EDGES.put("s", list("", "a", "gr\u00f6\u00dfe \ud83d\ude00", "\u00e9", "tab\there\nnew line\u0001ctl",
                LONG_STRING, null, "Z"));
        EDGES.put("b", list(new byte[0], new byte[] {0, 1, 127, -128, -1}, null, new byte[2000]));
        EDGES.put("dec9", list(new BigDecimal("9999999.99"), new BigDecimal("-9999999.99"), new BigDecimal("0.00"),
                new BigDecimal("0.01"), new BigDecimal("-0.01"), null));
        String nines = "9".repeat(32) + "." + "9".repeat(6);
        EDGES.put("dec38", list(new BigDecimal(nines), new BigDecimal("-" + nines), new BigDecimal("0.000000"),
                new BigDecimal("1.000001"), null));
        EDGES.put("day", list(LocalDate.of(1000, 1, 1), LocalDate.of(1582, 10, 4), LocalDate.of(1582, 10, 15),
                LocalDate.of(1970, 1, 1), LocalDate.of(1969, 12, 31), LocalDate.of(9999, 12, 31), null,
                LocalDate.of(2026, 11, 27)));
        EDGES.put("ts", list(Instant.parse("1500-06-15T10:00:00Z"), Instant.parse("1970-01-01T00:00:00Z"),
                Instant.parse("1969-12-31T23:59:59.999Z"), Instant.parse("9999-12-31T23:59:59.999Z"), null,
                Instant.parse("2026-11-27T12:34:56.789Z")));
        EDGES.put("topCamel", list("x", null, "Y"));
        EDGES.put("arr", list(List.of(), null, Collections.singletonList(null), List.of("a", "b"),
                List.of("gr\u00f6\u00dfe")));
        Map<String, Object> nullValue = new LinkedHashMap<>();
        nullValue.put("k1", null);
        Map<String, Object> twoKeys = new LinkedHashMap<>();
        twoKeys.put("k1", 1L);
        twoKeys.put("k2", Long.MAX_VALUE);
        EDGES.put("m", list(Map.of(), null, nullValue, twoKeys));
        EDGES.put("rec.userId", list("u1", null, "\u00e9", ""));
        EDGES.put("rec.UPPER", list(7, Integer.MIN_VALUE, null));
        EDGES.put("rec.Deep.deepName", list(Long.MAX_VALUE, 3L, null, -3L, 0L));
        EDGES.put("rec.Deep.ALLCAPS", list("Q", null, "caps"));
        EDGES.put("items", list(List.of(), List.<Object[]>of(item("A1", 1)), null,
                List.of(item("B2", 2), item("C3", 3))));
        EDGES.put("added", list("new", null, "", "\u00e9"));
    }

    private MatrixRows() {
    }

    /** Row {@code id}'s value of a column or nested field ({@code rec.Deep.deepName}); null is SQL NULL. */
    static Object value(String column, int id) {
        if (column.equals("id")) {
            return (long) id;
        }
        if (column.equals("bucket")) {
            return bucket(id);
        }
        if (column.equals("added") && id < V1_ROWS) {
            return null; // written before the column existed
        }
        if (column.startsWith("rec.") && !recPresent(id)) {
            return null;
        }
        if (column.startsWith("rec.Deep.") && !deepPresent(id)) {
            return null;
        }
        if (column.equals("rec")) {
            return recPresent(id) ? "present" : null;
        }
        if (column.equals("rec.Deep")) {
            return recPresent(id) && deepPresent(id) ? "present" : null;
        }
        List<Object> edges = EDGES.get(column);
        if (edges == null) {
            throw new IllegalArgumentException("no column " + column);
        }
        return edges.get(id % edges.size());
    }

    /**
     * Partitions b0 and b1 are written before the evolution, b1 and b2 after it (b2 is new then); both Kafka
     * partitions, so both tasks, write to each.
     */
    static String bucket(int id) {
        return "b" + ((id / 2) % 2 + (id < V1_ROWS ? 0 : 1));
    }

    /** Kafka partition of row {@code id}: each task gets every other row. */
    static int kafkaPartition(int id) {
        return id % 2;
    }

    private static boolean recPresent(int id) {
        return id % 7 != 3;
    }

    private static boolean deepPresent(int id) {
        return id % 5 != 1;
    }

    /** Row {@code id} as the producer sends it. */
    static GenericRecord avro(int id) {
        Schema schema = id < V1_ROWS ? V1 : V2;
        GenericRecord record = new GenericData.Record(schema);
        for (Schema.Field field : schema.getFields()) {
            Schema type = nonNull(field.schema());
            record.put(field.name(), switch (field.name()) {
                case "rec" -> recPresent(id) ? inner(type, id) : null;
                default -> toAvro(type, value(field.name(), id));
            });
        }
        return record;
    }

    private static GenericRecord inner(Schema schema, int id) {
        GenericRecord inner = new GenericData.Record(schema);
        inner.put("userId", value("rec.userId", id));
        inner.put("UPPER", value("rec.UPPER", id));
        if (deepPresent(id)) {
            GenericRecord deep = new GenericData.Record(nonNull(schema.getField("Deep").schema()));
            deep.put("deepName", value("rec.Deep.deepName", id));
            deep.put("ALLCAPS", value("rec.Deep.ALLCAPS", id));
            inner.put("Deep", deep);
        }
        return inner;
    }

    @SuppressWarnings("unchecked")
    private static Object toAvro(Schema type, Object value) {
        if (value == null) {
            return null;
        }
        if (type.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
            return new Conversions.DecimalConversion().toBytes((BigDecimal) value, type, decimal);
        }
        if (value instanceof LocalDate day) {
            return (int) day.toEpochDay();
        }
        if (value instanceof Instant instant) {
            return instant.toEpochMilli();
        }
        if (value instanceof byte[] bytes) {
            return ByteBuffer.wrap(bytes);
        }
        if (type.getType() == Schema.Type.ARRAY && nonNull(type.getElementType()).getType() == Schema.Type.RECORD) {
            List<GenericRecord> items = new ArrayList<>();
            for (Object[] item : (List<Object[]>) value) {
                GenericRecord avroItem = new GenericData.Record(type.getElementType());
                avroItem.put("skuId", item[0]);
                avroItem.put("qty", item[1]);
                items.add(avroItem);
            }
            return items;
        }
        return value;
    }

    private static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        return schema.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().orElseThrow();
    }

    private static Object[] item(String sku, int qty) {
        return new Object[] {sku, qty};
    }

    private static List<Object> list(Object... values) {
        return Collections.unmodifiableList(Arrays.asList(values));
    }

    private static String optional(String name, String type) {
        return "{\"name\": \"" + name + "\", \"type\": [\"null\", " + type + "], \"default\": null}";
    }

    private static String record(String fields) {
        return "{\"type\": \"record\", \"name\": \"Breaker\", \"namespace\": \"io.hivesink.matrix\", \"fields\": ["
                + fields + "]}";
    }
}
