package io.hivesink.metastore;

import java.util.StringJoiner;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/** The Hive column type that Hive's AvroSerDe derives from an Avro schema; the metastore must declare the same. */
public final class HiveTypes {

    private HiveTypes() {
    }

    public static String of(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal) {
            return "decimal(" + decimal.getPrecision() + "," + decimal.getScale() + ")";
        }
        if (logical instanceof LogicalTypes.Date) {
            return "date";
        }
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return "timestamp";
        }
        switch (schema.getType()) {
            case INT:
                return "int";
            case LONG:
                return "bigint";
            case FLOAT:
                return "float";
            case DOUBLE:
                return "double";
            case BOOLEAN:
                return "boolean";
            case STRING:
            case ENUM:
                return "string";
            case BYTES:
            case FIXED:
                return "binary";
            case ARRAY:
                return "array<" + of(schema.getElementType()) + ">";
            case MAP:
                return "map<string," + of(schema.getValueType()) + ">";
            case RECORD: {
                StringJoiner fields = new StringJoiner(",", "struct<", ">");
                for (Schema.Field field : schema.getFields()) {
                    fields.add(field.name() + ":" + of(field.schema()));
                }
                return fields.toString();
            }
            case UNION:
                return of(nullableBranch(schema));
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " has no Hive column type.");
        }
    }

    private static Schema nullableBranch(Schema union) {
        Schema branch = null;
        for (Schema s : union.getTypes()) {
            if (s.getType() != Schema.Type.NULL) {
                if (branch != null) {
                    throw new IllegalArgumentException("Hive reads only unions of null and one type: " + union);
                }
                branch = s;
            }
        }
        return branch;
    }
}
