package io.hivesink.orc;

import java.util.List;
import java.util.Locale;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.orc.TypeDescription;

import io.hivesink.format.NullableColumns;

/**
 * The ORC schema of a table's files, from the Avro schema of its columns: the ORC type of each column type the
 * connector declares ({@code metastore.HiveTypes}), in the table's column order. Order matters: Hive before 4 and
 * Trino match an ORC file's columns to the table's by position, so a file is always written with every column of the
 * table, in order, and new columns only ever come last.
 *
 * <p>Names are the table's: columns in lower case as Hive stores them, a struct's fields in the case the table's type
 * gives them ({@code struct<userId:string>}). Hive builds its ORC reader schema from the table's types and ORC matches
 * a struct's fields by name, case-sensitively (ORC 1.3 always; 1.5 and later by default), so a field written as
 * {@code userid} reads NULL in every row through Hive 2.3, 3.1 and 4.0.
 */
public final class OrcSchemas {

    private OrcSchemas() {
    }

    /**
     * Why records of this schema (a table's columns) cannot be an ORC file, or null if they can: no column (every
     * field is a partition column), a record without fields (Hive has no empty struct), a type ORC has no column for.
     */
    public static String unwritable(Schema columns) {
        if (columns.getFields().isEmpty()) {
            return "an ORC file needs a column besides the partition columns, and the records have none";
        }
        try {
            of(columns);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    public static TypeDescription of(Schema record) {
        TypeDescription struct = TypeDescription.createStruct();
        for (Schema.Field field : record.getFields()) {
            struct.addField(columnName(field.name()), type(field.name(), field.schema()));
        }
        return struct;
    }

    static String columnName(String avroName) {
        return avroName.toLowerCase(Locale.ROOT);
    }

    /** Where the field named {@code name} in any case is among a struct's {@code fields}, or -1. */
    static int indexOf(List<String> fields, String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (columnName(fields.get(i)).equals(columnName(name))) {
                return i;
            }
        }
        return -1;
    }

    private static TypeDescription type(String name, Schema schema) {
        Schema value = NullableColumns.nonNull(schema);
        LogicalType logical = value.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal) {
            return TypeDescription.createDecimal().withScale(decimal.getScale())
                    .withPrecision(decimal.getPrecision());
        }
        if (logical instanceof LogicalTypes.Date) {
            return TypeDescription.createDate();
        }
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return TypeDescription.createTimestamp();
        }
        return switch (value.getType()) {
            case INT -> TypeDescription.createInt();
            case LONG -> TypeDescription.createLong();
            case FLOAT -> TypeDescription.createFloat();
            case DOUBLE -> TypeDescription.createDouble();
            case BOOLEAN -> TypeDescription.createBoolean();
            case STRING, ENUM -> TypeDescription.createString();
            case BYTES, FIXED -> TypeDescription.createBinary();
            case RECORD -> {
                if (value.getFields().isEmpty()) {
                    throw new IllegalArgumentException("Field " + name + " is a record without fields, and Hive "
                            + "has no struct without fields");
                }
                TypeDescription struct = TypeDescription.createStruct();
                for (Schema.Field field : value.getFields()) {
                    struct.addField(field.name(), type(field.name(), field.schema()));
                }
                yield struct;
            }
            case ARRAY -> TypeDescription.createList(type(name, value.getElementType()));
            case MAP -> TypeDescription.createMap(TypeDescription.createString(), type(name, value.getValueType()));
            default -> throw new IllegalArgumentException("Avro type " + value.getType() + " (field " + name
                    + ") has no ORC column type");
        };
    }
}
