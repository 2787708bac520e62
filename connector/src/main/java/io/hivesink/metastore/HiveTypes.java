package io.hivesink.metastore;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/** The Hive column type that Hive's AvroSerDe derives from an Avro schema; the metastore must declare the same. */
public final class HiveTypes {

    /**
     * The deepest nesting of structs, arrays and maps below a table's columns that Hive can plan queries over: Hive
     * 4.0.1 takes time that doubles with each level to compile any query of such a table (measured: 0.15 s at 15
     * levels, 1 s at 20, more than 90 s at 30), so a deeper table would hang every query.
     */
    public static final int MAX_NESTING = 20;

    private HiveTypes() {
    }

    /**
     * Why Hive could not query a table of this record schema, or null if it can: a type nested deeper than
     * {@link #MAX_NESTING}, or a recursive type (Hive's types are finite).
     */
    public static String unqueryable(Schema record) {
        for (Schema.Field field : record.getFields()) {
            int fieldDepth = nesting(field.schema(), Collections.newSetFromMap(new IdentityHashMap<>()));
            if (fieldDepth < 0) {
                return "column " + field.name() + " has a recursive type, which Hive has no column type for";
            }
            if (fieldDepth > MAX_NESTING) {
                return "column " + field.name() + " nests " + fieldDepth + " levels of records, arrays and maps; "
                        + "Hive plans queries of a table nested deeper than " + MAX_NESTING + " levels too slowly "
                        + "to use (the time doubles with each level)";
            }
        }
        return null;
    }

    /**
     * Why Hive could not tell two of the record's columns (or two fields of a record nested in one) apart: they
     * differ only by case, and Hive's names are case-insensitive. Null if it can. Call after {@link #unqueryable}:
     * a recursive type is refused there.
     */
    public static String caseCollision(Schema record) {
        return caseCollision(record, record.getName());
    }

    private static String caseCollision(Schema schema, String path) {
        switch (schema.getType()) {
            case RECORD -> {
                Map<String, String> byLowerCase = new HashMap<>();
                for (Schema.Field field : schema.getFields()) {
                    String other = byLowerCase.putIfAbsent(field.name().toLowerCase(Locale.ROOT), field.name());
                    if (other != null) {
                        return "fields '" + other + "' and '" + field.name() + "' of " + path + " differ only by "
                                + "case, and Hive column names are case-insensitive";
                    }
                    String inner = caseCollision(field.schema(), path + "." + field.name());
                    if (inner != null) {
                        return inner;
                    }
                }
                return null;
            }
            case ARRAY -> {
                return caseCollision(schema.getElementType(), path);
            }
            case MAP -> {
                return caseCollision(schema.getValueType(), path);
            }
            case UNION -> {
                for (Schema branch : schema.getTypes()) {
                    String inner = caseCollision(branch, path);
                    if (inner != null) {
                        return inner;
                    }
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    /** Levels of records, arrays and maps in {@code schema}; -1 if it contains itself. */
    private static int nesting(Schema schema, Set<Schema> enclosing) {
        return switch (schema.getType()) {
            case RECORD -> {
                if (!enclosing.add(schema)) {
                    yield -1;
                }
                int deepest = 0;
                for (Schema.Field field : schema.getFields()) {
                    int inner = nesting(field.schema(), enclosing);
                    if (inner < 0) {
                        yield -1;
                    }
                    deepest = Math.max(deepest, inner);
                }
                enclosing.remove(schema);
                yield 1 + deepest;
            }
            case ARRAY -> deeper(nesting(schema.getElementType(), enclosing));
            case MAP -> deeper(nesting(schema.getValueType(), enclosing));
            case UNION -> {
                int deepest = 0;
                for (Schema branch : schema.getTypes()) {
                    int inner = nesting(branch, enclosing);
                    if (inner < 0) {
                        yield -1;
                    }
                    deepest = Math.max(deepest, inner);
                }
                yield deepest;
            }
            default -> 0;
        };
    }

    private static int deeper(int inner) {
        return inner < 0 ? -1 : inner + 1;
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
