package io.hivesink.route;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.config.PartitionConfig;
import io.hivesink.table.PartitionSpec;

/**
 * {@code field}: partitions by the values of top-level record fields ({@code partition.fields}); each becomes a
 * partition column of the same name and leaves the data files.
 */
public final class FieldPartitioner implements Partitioner {

    private List<String> fieldNames = List.of();

    public FieldPartitioner() {
    }

    public FieldPartitioner(List<String> fieldNames) {
        this.fieldNames = List.copyOf(fieldNames);
    }

    @Override
    public void configure(Map<String, String> settings) {
        fieldNames = PartitionConfig.fieldsOf(settings);
    }

    /**
     * @throws DataException if a field is missing from the schema or has a type that cannot be a partition column
     */
    @Override
    public Binding bind(Schema valueSchema) {
        List<Field> fields = new ArrayList<>(fieldNames.size());
        List<String> names = new ArrayList<>(fieldNames.size());
        List<String> types = new ArrayList<>(fieldNames.size());
        for (String name : fieldNames) {
            Field field = valueSchema.field(name);
            if (field == null) {
                throw new DataException("Partition field '" + name + "' is not a top-level field of the record "
                        + "schema (fields: " + valueSchema.fields().stream().map(Field::name).toList()
                        + "). Fix " + PartitionConfig.PARTITION_FIELDS + " or the records.");
            }
            fields.add(field);
            names.add(name.toLowerCase(Locale.ROOT));
            types.add(hiveType(field));
        }
        PartitionSpec spec = new PartitionSpec(names, types);
        Set<String> consumed = Set.copyOf(fieldNames);
        return new Binding() {
            @Override
            public PartitionSpec spec() {
                return spec;
            }

            @Override
            public Set<String> fieldsAsColumns() {
                return consumed;
            }

            @Override
            public Set<String> fieldsRead() {
                return consumed;
            }

            @Override
            public void values(SinkRecord record, Struct value, List<String> out) {
                for (Field field : fields) {
                    Object v = value.get(field);
                    out.add(v == null ? null : format(field, v));
                }
            }
        };
    }

    private static String format(Field field, Object value) {
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(field.schema().name())) {
            return LocalDate.ofInstant(((java.util.Date) value).toInstant(), ZoneOffset.UTC).toString();
        }
        return value.toString();
    }

    private static String hiveType(Field field) {
        Schema schema = field.schema();
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(schema.name())) {
            return "date";
        }
        if (schema.name() == null || schema.type() == Schema.Type.STRING) {
            switch (schema.type()) {
                case STRING:
                    return "string";
                case INT8:
                case INT16:
                case INT32:
                    return "int";
                case INT64:
                    return "bigint";
                case BOOLEAN:
                    return "boolean";
                default:
                    break;
            }
        }
        throw new DataException("Partition field '" + field.name() + "' has type " + schema.type()
                + (schema.name() != null ? " (" + schema.name() + ")" : "")
                + "; a partition field must be a string, an integer, a boolean or a Date. To partition by a "
                + "timestamp, use the time partitioner with partition.time.field.");
    }
}
