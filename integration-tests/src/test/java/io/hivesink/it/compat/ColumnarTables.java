package io.hivesink.it.compat;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.stack.commit.CommitRig;

/**
 * The Parquet and ORC tables {@link MetastoreCompatibility}'s readers read: {@code <format>_events} (a schema
 * evolved over two batches), {@code <format>_types} (every column type, value by value) and {@code <format>_floats}
 * (NaN and -0.0 beside numbers, for predicates pushed down to statistics).
 */
final class ColumnarTables {

    private ColumnarTables() {
    }

    /**
     * Every column type a Parquet or ORC table can have, with nulls and nested structs whose fields are in camelCase
     * at two depths (Hive reads an ORC file's struct fields by the table's names, case-sensitively). Each format's
     * own reader checks empty arrays and null map values ({@code ParallelParquetWriterTest},
     * {@code ParallelOrcWriterTest}); Hive 4.0.1 reads an empty array as NULL and a null int map value as 0 from
     * any Parquet file, so they are not compared here.
     */
    static final Schema TYPES = SchemaBuilder.struct().name("Types")
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .field("i8", Schema.INT8_SCHEMA)
            .field("i16", Schema.INT16_SCHEMA)
            .field("i32", Schema.INT32_SCHEMA)
            .field("f32", Schema.FLOAT32_SCHEMA)
            .field("f64", Schema.FLOAT64_SCHEMA)
            .field("flag", Schema.BOOLEAN_SCHEMA)
            .field("s", Schema.OPTIONAL_STRING_SCHEMA)
            .field("b", Schema.BYTES_SCHEMA)
            .field("amount", Decimal.schema(2))
            .field("d", org.apache.kafka.connect.data.Date.SCHEMA)
            .field("ts", Timestamp.builder().optional().build())
            .field("arr", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build())
            .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).build())
            .field("st", SchemaBuilder.struct().name("Inner")
                    .field("x", Schema.INT32_SCHEMA)
                    .field("y", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("userId", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("Deep", SchemaBuilder.struct().name("Deep")
                            .field("deepName", Schema.INT32_SCHEMA).optional().build())
                    .optional().build())
            .build();

    static final String TYPES_COLUMNS = "cast(id as string), bucket, cast(i8 as string), "
            + "cast(i16 as string), cast(i32 as string), cast(f32 as string), cast(f64 as string), "
            + "if(flag, 'yes', 'no'), s, hex(b), cast(amount as string), cast(d as string), cast(ts as string), "
            + "cast(size(arr) as string), arr[0], arr[1], arr[2], cast(m['k1'] as string), cast(size(m) as string), "
            + "cast(st.x as string), st.y, st.userId, cast(st.Deep.deepName as string)";

    static final List<List<String>> TYPES_EXPECTED = Arrays.asList(
            Arrays.asList("1", "b1", "-8", "-1600", "32", "1.5", "-2.25", "yes", "größe 😀", "00017F80FF",
                    "-12345.67", "2026-11-26", "2026-11-26 12:34:56.789", "3", "a", null, "c", "7", "2", "5", "y", "u1",
                    "9"),
            Arrays.asList("2", "b0", "127", "32767", "2147483647", "0.0", "1.0E100", "no", null, "",
                    "0.01", "1969-12-31", null, "3", "x", "y", "z", "9", "1", null, null, null, null));

    /** The two tables of a columnar format the query engine reads: evolved events, and every type. */
    static void land(CommitRig rig, String format, Fencing fencing) {
        TopicPartition events = new TopicPartition(format + ".events", 0);
        TopicPartition types = new TopicPartition(format + ".types", 0);
        CommitRig.Task task = rig.task(format + "-sink", 0, FaultInjector.NONE, fencing,
                Map.of("format", format));
        task.committer().claim(List.of(events, types));
        for (long offset = 0; offset < 4; offset++) {
            task.add(events, offset, "b" + (offset % 2));
        }
        Schema st = TYPES.field("st").schema();
        Struct inner = new Struct(st).put("x", 5).put("y", "y").put("userId", "u1")
                .put("Deep", new Struct(st.field("Deep").schema()).put("deepName", 9)); // camelCase at two depths
        Map<String, Integer> twoKeys = new LinkedHashMap<>();
        twoKeys.put("k1", 7);
        twoKeys.put("k2", null);
        task.add(new SinkRecord(types.topic(), 0, null, null, TYPES,
                new Struct(TYPES).put("id", 1L).put("bucket", "b1").put("i8", (byte) -8)
                        .put("i16", (short) -1600).put("i32", 32).put("f32", 1.5f).put("f64", -2.25)
                        .put("flag", true).put("s", "größe 😀").put("b", new byte[] {0, 1, 127, -128, -1})
                        .put("amount", new BigDecimal("-12345.67"))
                        .put("d", java.util.Date.from(Instant.parse("2026-11-26T00:00:00Z")))
                        .put("ts", java.util.Date.from(Instant.parse("2026-11-26T12:34:56.789Z")))
                        .put("arr", Arrays.asList("a", null, "c")).put("m", twoKeys).put("st", inner),
                0));
        task.add(new SinkRecord(types.topic(), 0, null, null, TYPES,
                new Struct(TYPES).put("id", 2L).put("bucket", "b0")
                        .put("i8", (byte) 127).put("i16", (short) 32767).put("i32", Integer.MAX_VALUE)
                        .put("f32", 0.0f).put("f64", 1e100).put("flag", false).put("b", new byte[0])
                        .put("amount", new BigDecimal("0.01"))
                        .put("d", java.util.Date.from(Instant.parse("1969-12-31T00:00:00Z")))
                        .put("arr", List.of("x", "y", "z")).put("m", Map.of("k1", 9)),
                1));
        task.commit();
        for (long offset = 4; offset < 7; offset++) {
            task.add(events, offset, "b" + (offset % 3), "note-" + offset);
        }
        task.commit();
        landFloats(rig, format, fencing);
    }

    private static final Schema FLOATS = SchemaBuilder.struct().name("Floats")
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .field("d", Schema.FLOAT64_SCHEMA)
            .field("f", Schema.FLOAT32_SCHEMA)
            .build();

    /**
     * A file of [1.0, 1.0, NaN] (partition b0) and one of [-0.0, 0.0] (b1), in one batch: a reader that trusts a
     * min and max without the NaN skips the first file for {@code d <> 1}.
     */
    private static void landFloats(CommitRig rig, String format, Fencing fencing) {
        TopicPartition floats = new TopicPartition(format + ".floats", 0);
        CommitRig.Task task = rig.task(format + "-floats-sink", 0, FaultInjector.NONE, fencing,
                Map.of("format", format));
        task.committer().claim(List.of(floats));
        double[] values = {1.0, 1.0, Double.NaN, -0.0, 0.0};
        for (int i = 0; i < values.length; i++) {
            task.add(new SinkRecord(floats.topic(), 0, null, null, FLOATS, new Struct(FLOATS).put("id", i + 1L)
                    .put("bucket", i < 3 ? "b0" : "b1").put("d", values[i]).put("f", (float) values[i]), i));
        }
        task.commit();
    }
}
