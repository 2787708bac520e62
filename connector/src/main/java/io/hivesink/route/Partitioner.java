package io.hivesink.route;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.table.PartitionSpec;

/**
 * Decides the Hive partition of a table's records. The built-in ones are {@code field}, {@code time} and
 * {@code kafka}; a custom one is a public class with a public no-argument constructor, named by its full class name in
 * {@code partitioner} and found on the plugin's class path.
 *
 * <p>An instance serves one table: it is configured once, then bound once per record schema that reaches the table;
 * the binding is called once per record, from several encoding threads at a time, so it must be thread-safe.
 */
public interface Partitioner {

    /** What {@link Binding#eventTime} gives for a record without an event time. */
    long NO_EVENT_TIME = Long.MIN_VALUE;

    /**
     * Reads the partitioner's settings; called once, before any record.
     *
     * @param settings the connector's properties with the table's overrides ({@code table.<name>.<key>}) applied
     */
    default void configure(Map<String, String> settings) {
    }

    /**
     * Resolves the partitioner against one record schema: looks up fields and picks column types, so that per record
     * only values are read and formatted.
     *
     * @throws org.apache.kafka.connect.errors.DataException if records of this schema cannot be partitioned, saying why
     */
    Binding bind(Schema valueSchema);

    /** A partitioner resolved against one record schema. */
    interface Binding {

        /** Partition column names (lower case) and Hive types, in directory order. */
        PartitionSpec spec();

        /**
         * Top-level fields whose values are the partition columns of the same name; they are left out of the data
         * files, because Hive does not let a column be both a data and a partition column.
         */
        default Set<String> fieldsAsColumns() {
            return Set.of();
        }

        /**
         * Top-level fields that {@link #values} reads. When records arrive as encoded Avro datums
         * ({@code input.format=confluent-avro}) only these are decoded, and the Struct handed to {@link #values}
         * holds only them. Null (the default) means any: every field a partitioner can read (strings, enums, numbers,
         * booleans, dates, timestamps) is decoded.
         */
        default Set<String> fieldsRead() {
            return null;
        }

        /**
         * Appends one value per column of {@link #spec()} to {@code out}: unescaped text, or null for a null value
         * (which lands in Hive's default partition).
         *
         * @throws org.apache.kafka.connect.errors.DataException for a record that cannot be partitioned, saying why
         */
        void values(SinkRecord record, Struct value, List<String> out);

        /**
         * The record's event time in epoch milliseconds, the time its partition stands for, or
         * {@link #NO_EVENT_TIME} if it has none here (a partitioner not by time). Called on the thread that has just
         * called {@link #values} for the same record, so that a partitioner may keep what it read there.
         */
        default long eventTime(SinkRecord record, Struct value) {
            return NO_EVENT_TIME;
        }
    }
}
