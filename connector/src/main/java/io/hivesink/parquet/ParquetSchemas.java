package io.hivesink.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import io.hivesink.format.NullableColumns;

/**
 * The Parquet schema of a table's files, from the Avro schema of its columns: the types Hive's Parquet reader (2.3 to
 * 4.0) maps to the column types the connector declares ({@code metastore.HiveTypes}). Names are lower case, as Hive
 * stores them; a nullable field (a union with null) is optional, any other required. Timestamps are INT96, the only
 * Parquet timestamp Hive 2 and 3 read; decimals are fixed-length byte arrays of the precision's size; arrays and maps
 * take the three-level form the Parquet spec names.
 */
public final class ParquetSchemas {

    static final String LIST_GROUP = "list";
    static final String LIST_ELEMENT = "element";
    static final String MAP_GROUP = "key_value";
    static final String MAP_KEY = "key";
    static final String MAP_VALUE = "value";

    private ParquetSchemas() {
    }

    /**
     * Why records of this schema (a table's columns) cannot be a Parquet file, or null if they can: no column (every
     * field is a partition column), a type Parquet has no column for.
     */
    public static String unwritable(Schema columns) {
        if (columns.getFields().isEmpty()) {
            return "a Parquet file needs a column besides the partition columns, and the records have none";
        }
        try {
            of(columns);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    static MessageType of(Schema record) {
        List<Type> fields = new ArrayList<>();
        for (Schema.Field field : record.getFields()) {
            fields.add(type(columnName(field.name()), field.schema()));
        }
        return new MessageType("hive_sink", fields);
    }

    static String columnName(String avroName) {
        return avroName.toLowerCase(Locale.ROOT);
    }

    private static Type type(String name, Schema schema) {
        Schema value = NullableColumns.nonNull(schema);
        Type.Repetition repetition = NullableColumns.nullable(schema) ? Type.Repetition.OPTIONAL
                : Type.Repetition.REQUIRED;
        LogicalType logical = value.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal) {
            return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                    .length(decimalBytes(decimal.getPrecision()))
                    .as(LogicalTypeAnnotation.decimalType(decimal.getScale(), decimal.getPrecision())).named(name);
        }
        if (logical instanceof LogicalTypes.Date) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).as(LogicalTypeAnnotation.dateType())
                    .named(name);
        }
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return Types.primitive(PrimitiveTypeName.INT96, repetition).named(name);
        }
        return switch (value.getType()) {
            case INT -> Types.primitive(PrimitiveTypeName.INT32, repetition).named(name);
            case LONG -> Types.primitive(PrimitiveTypeName.INT64, repetition).named(name);
            // the order Parquet before 1.16 declares: Hive 4.0's Parquet (1.13) reads 1.16's default, IEEE 754 total
            // order, as undefined, and then fails to find the column in a file it reads row by row
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, repetition).columnOrder(ColumnOrder.typeDefined())
                    .named(name);
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, repetition)
                    .columnOrder(ColumnOrder.typeDefined()).named(name);
            case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
            case STRING, ENUM -> Types.primitive(PrimitiveTypeName.BINARY, repetition)
                    .as(LogicalTypeAnnotation.stringType()).named(name);
            case BYTES, FIXED -> Types.primitive(PrimitiveTypeName.BINARY, repetition).named(name);
            case RECORD -> {
                if (value.getFields().isEmpty()) {
                    throw new IllegalArgumentException("Field " + name + " is a record without fields, and a "
                            + "Parquet group needs at least one");
                }
                List<Type> fields = new ArrayList<>();
                for (Schema.Field field : value.getFields()) {
                    fields.add(type(columnName(field.name()), field.schema()));
                }
                yield new GroupType(repetition, name, fields);
            }
            case ARRAY -> Types.buildGroup(repetition).as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(type(LIST_ELEMENT, value.getElementType()))
                            .named(LIST_GROUP))
                    .named(name);
            case MAP -> Types.buildGroup(repetition).as(LogicalTypeAnnotation.mapType())
                    .addField(Types.repeatedGroup()
                            .addField(Types.required(PrimitiveTypeName.BINARY)
                                    .as(LogicalTypeAnnotation.stringType()).named(MAP_KEY))
                            .addField(type(MAP_VALUE, value.getValueType()))
                            .named(MAP_GROUP))
                    .named(name);
            default -> throw new IllegalArgumentException("Avro type " + value.getType() + " (field " + name
                    + ") has no Parquet column type");
        };
    }

    /** The fewest bytes whose two's complement holds every unscaled value of {@code precision} digits. */
    static int decimalBytes(int precision) {
        int bytes = 1;
        while (Math.pow(2, 8 * bytes - 1) < Math.pow(10, precision)) {
            bytes++;
        }
        return bytes;
    }

    /**
     * The schema with only the leaf columns whose paths are in {@code kept} (and the groups above them): a schema a
     * part of a row group's columns are written with. Levels depend only on a column's ancestors, so a column has the
     * same levels in both.
     */
    static MessageType pruned(MessageType schema, Set<List<String>> kept) {
        List<Type> fields = prune(schema, List.of(), kept);
        return new MessageType(schema.getName(), fields);
    }

    private static List<Type> prune(GroupType group, List<String> path, Set<List<String>> kept) {
        List<Type> fields = new ArrayList<>();
        for (Type field : group.getFields()) {
            List<String> fieldPath = new ArrayList<>(path);
            fieldPath.add(field.getName());
            if (field.isPrimitive()) {
                if (kept.contains(fieldPath)) {
                    fields.add(field);
                }
            } else {
                List<Type> inner = prune(field.asGroupType(), fieldPath, kept);
                if (!inner.isEmpty()) {
                    fields.add(field.asGroupType().withNewFields(inner));
                }
            }
        }
        return fields;
    }
}
