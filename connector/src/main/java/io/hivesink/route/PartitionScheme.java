package io.hivesink.route;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.table.HivePaths;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * A table's partitioners bound to one record schema: their columns one after another, and per record the partition
 * it lands in. Thread-safe.
 */
public final class PartitionScheme {

    public static final PartitionScheme NONE = new PartitionScheme(List.of(), PartitionSpec.UNPARTITIONED, Set.of());

    private final List<Partitioner.Binding> bindings;
    private final PartitionSpec spec;
    private final Set<String> fieldsAsColumns;

    private PartitionScheme(List<Partitioner.Binding> bindings, PartitionSpec spec, Set<String> fieldsAsColumns) {
        this.bindings = bindings;
        this.spec = spec;
        this.fieldsAsColumns = fieldsAsColumns;
    }

    /**
     * The scheme of these partitioners for records of one value schema.
     *
     * @throws DataException if the partitioners give one column twice, or a column has the name of a record field
     *     that would stay in the data
     */
    public static PartitionScheme bind(List<Partitioner> partitioners, Schema valueSchema) {
        if (partitioners.isEmpty()) {
            return NONE;
        }
        List<Partitioner.Binding> bindings = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<String> types = new ArrayList<>();
        Set<String> asColumns = new HashSet<>();
        for (Partitioner partitioner : partitioners) {
            Partitioner.Binding binding = partitioner.bind(valueSchema);
            bindings.add(binding);
            for (int i = 0; i < binding.spec().names().size(); i++) {
                String column = binding.spec().names().get(i).toLowerCase(Locale.ROOT);
                if (names.contains(column)) {
                    throw new DataException("Partition column '" + column + "' is given by two partitioners; "
                            + "each column may come from one only.");
                }
                names.add(column);
                types.add(binding.spec().hiveTypes().get(i));
            }
            asColumns.addAll(binding.fieldsAsColumns());
        }
        PartitionScheme scheme = new PartitionScheme(List.copyOf(bindings), new PartitionSpec(names, types),
                Set.copyOf(asColumns));
        scheme.requireNoFieldNamedLikeAColumn(valueSchema.fields().stream().map(Field::name).toList());
        return scheme;
    }

    /**
     * Checks that no field that stays in the data has a partition column's name.
     *
     * @param fieldNames the record's top-level fields (a passed-through datum's include fields no partitioner can
     *     read, which {@link #bind} did not see)
     * @throws DataException if a field that stays in the data has the name of a partition column
     */
    public void requireNoFieldNamedLikeAColumn(List<String> fieldNames) {
        for (String field : fieldNames) {
            String lower = field.toLowerCase(Locale.ROOT);
            if (spec.names().contains(lower) && !fieldsAsColumns.contains(field)) {
                throw new DataException("Record field '" + field + "' has the name of partition column '" + lower
                        + "'; Hive cannot have a data column and a partition column of one name. Rename the field "
                        + "(with the ReplaceField transform, or in the producers' schema) or the partition column.");
            }
        }
    }

    public PartitionSpec spec() {
        return spec;
    }

    /** The top-level fields the partitioners read, or null if one of them may read any. */
    public Set<String> fieldsRead() {
        Set<String> read = new HashSet<>();
        for (Partitioner.Binding binding : bindings) {
            Set<String> fields = binding.fieldsRead();
            if (fields == null) {
                return null;
            }
            read.addAll(fields);
        }
        return read;
    }

    /** Record fields that are partition columns, left out of the data files. */
    public Set<String> fieldsAsColumns() {
        return fieldsAsColumns;
    }

    /**
     * The values of the partition columns for one record.
     *
     * @throws DataException for a record a partitioner cannot place
     */
    public PartitionValues partitionOf(SinkRecord record, Struct value) {
        if (bindings.isEmpty()) {
            return PartitionValues.NONE;
        }
        List<String> values = new ArrayList<>(spec.names().size());
        for (Partitioner.Binding binding : bindings) {
            binding.values(record, value, values);
        }
        if (values.size() != spec.names().size()) {
            throw new DataException("A partitioner gave " + values.size() + " values for the " + spec.names().size()
                    + " columns " + spec.names() + ".");
        }
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            if (v == null || v.isEmpty()) {
                values.set(i, HivePaths.DEFAULT_PARTITION_NAME);
            }
        }
        return new PartitionValues(spec.names(), values);
    }

    /**
     * The record's event time, as the first partitioner that has one gives it, or
     * {@link Partitioner#NO_EVENT_TIME}; asked right after {@link #partitionOf} for the same record.
     */
    public long eventTime(SinkRecord record, Struct value) {
        for (Partitioner.Binding binding : bindings) {
            long time = binding.eventTime(record, value);
            if (time != Partitioner.NO_EVENT_TIME) {
                return time;
            }
        }
        return Partitioner.NO_EVENT_TIME;
    }
}
