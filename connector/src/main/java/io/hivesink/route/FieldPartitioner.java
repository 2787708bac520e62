package io.hivesink.route;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Partitions by the values of top-level record fields. Built once per record schema: it resolves the fields and
 * their Hive column types up front, so per record it only reads and formats values.
 */
public final class FieldPartitioner {

    private final List<Field> fields;
    private final PartitionSpec spec;

    private FieldPartitioner(List<Field> fields, PartitionSpec spec) {
        this.fields = fields;
        this.spec = spec;
    }

    /**
     * @throws DataException if a field is missing from the schema or has a type that cannot be a partition column
     */
    public static FieldPartitioner forSchema(Schema valueSchema, List<String> fieldNames) {
        List<Field> fields = new ArrayList<>(fieldNames.size());
        List<String> names = new ArrayList<>(fieldNames.size());
        List<String> types = new ArrayList<>(fieldNames.size());
        for (String name : fieldNames) {
            Field field = valueSchema.field(name);
            if (field == null) {
                throw new DataException("Partition field '" + name + "' is not a top-level field of the record "
                        + "schema (fields: " + valueSchema.fields().stream().map(Field::name).toList()
                        + "). Fix partition.fields or the records.");
            }
            fields.add(field);
            names.add(name.toLowerCase(java.util.Locale.ROOT));
            types.add(hiveType(field));
        }
        return new FieldPartitioner(List.copyOf(fields), new PartitionSpec(names, types));
    }

    public PartitionSpec spec() {
        return spec;
    }

    public PartitionValues partitionOf(Struct value) {
        if (fields.isEmpty()) {
            return PartitionValues.NONE;
        }
        List<String> values = new ArrayList<>(fields.size());
        for (Field field : fields) {
            Object v = value.get(field);
            values.add(v == null ? HivePaths.DEFAULT_PARTITION_NAME : format(field, v));
        }
        return new PartitionValues(spec.names(), values);
    }

    private static String format(Field field, Object value) {
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(field.schema().name())) {
            return LocalDate.ofInstant(((java.util.Date) value).toInstant(), ZoneOffset.UTC).toString();
        }
        String text = value.toString();
        return text.isEmpty() ? HivePaths.DEFAULT_PARTITION_NAME : text;
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
                + "; a partition field must be a string, an integer, a boolean or a Date.");
    }
}
