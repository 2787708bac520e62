package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * Decides whether a table whose files follow one Avro schema can take records of another, and if the table must
 * change, what it becomes. Files are always written with the records' own schema; Hive reads every file through
 * the table's schema by Avro's schema resolution. So the table's schema must be able to read the records' schema and
 * every schema the table read before. The evolved schema keeps the table's columns in their order (new ones go at
 * the end, as Hive's ALTER TABLE ... ADD COLUMNS would put them), and changes only in ways that keep old files
 * readable:
 * <ul>
 * <li>a new field that is optional or has a default is added at the end;</li>
 * <li>a number widens: int to long, float or double; long to float or double; float to double;</li>
 * <li>a required field becomes optional (the records made it optional, or stopped sending it);</li>
 * <li>an enum gains symbols;</li>
 * <li>the same, inside nested records, arrays and maps.</li>
 * </ul>
 * Anything else (a type that changes kind, a new required field without a default, a changed decimal) is
 * incompatible.
 */
// == on schemas asks the question meant: each step returns the very schema it was given when nothing changed
@SuppressWarnings("ReferenceEquality")
public final class SchemaEvolution {

    /** What the table needs in order to take the records. */
    public sealed interface Outcome permits AlreadyReadable, Evolve, Incompatible {
    }

    /** The table's schema reads the records as they are. */
    public record AlreadyReadable() implements Outcome {
    }

    /** The table's schema must become {@code schema}; {@code changes} says what changed, for the log. */
    public record Evolve(Schema schema, List<String> changes) implements Outcome {
    }

    /** No schema reads both the table's files and the records; {@code reason} says where and why. */
    public record Incompatible(String reason) implements Outcome {
    }

    private static final List<Schema.Type> NUMBER_ORDER =
            List.of(Schema.Type.INT, Schema.Type.LONG, Schema.Type.FLOAT, Schema.Type.DOUBLE);

    private final List<String> changes = new ArrayList<>();

    private final boolean widening;

    private SchemaEvolution(boolean widening) {
        this.widening = widening;
    }

    public static Outcome evolve(Schema table, Schema records) {
        return evolve(table, records, true);
    }

    /**
     * The outcome for a table whose numbers may widen or not.
     *
     * @param widening whether numbers may widen: not for a columnar table, whose old files keep the narrower type,
     *                 which readers do not all convert (Spark 3 none, Spark 4 some)
     */
    public static Outcome evolve(Schema table, Schema records, boolean widening) {
        if (table.equals(records)) {
            return new AlreadyReadable();
        }
        SchemaEvolution evolution = new SchemaEvolution(widening);
        Schema merged;
        try {
            merged = evolution.merge(table, records, "");
        } catch (IncompatibleException e) {
            return new Incompatible(e.getMessage());
        }
        if (!readable(merged, records) || !readable(merged, table)) {
            SchemaCompatibility.SchemaPairCompatibility check = !readable(merged, records)
                    ? SchemaCompatibility.checkReaderWriterCompatibility(merged, records)
                    : SchemaCompatibility.checkReaderWriterCompatibility(merged, table);
            return new Incompatible("no table schema reads both the old files and the records: "
                    + check.getResult().getIncompatibilities());
        }
        if (evolution.changes.isEmpty()) {
            return new AlreadyReadable();
        }
        return new Evolve(merged, List.copyOf(evolution.changes));
    }

    private static boolean readable(Schema reader, Schema writer) {
        return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
                == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
    }

    private static final class IncompatibleException extends RuntimeException {
        IncompatibleException(String message) {
            super(message, null, false, false);
        }
    }

    /** The schema that reads both {@code table} and {@code records} data, starting from the table's. */
    private Schema merge(Schema table, Schema records, String path) {
        Schema tableBase = nonNull(table);
        Schema recordsBase = nonNull(records);
        Schema base = mergeBase(tableBase, recordsBase, path);
        boolean tableNullable = tableBase != table;
        boolean recordsNullable = recordsBase != records;
        if (tableNullable) {
            return base == tableBase ? table : nullableLike(table, base);
        }
        if (recordsNullable) {
            changes.add(describe(path) + " became optional");
            return Schema.createUnion(Schema.create(Schema.Type.NULL), base);
        }
        return base;
    }

    private Schema mergeBase(Schema table, Schema records, String path) {
        if (table.equals(records)) {
            return table;
        }
        LogicalType tableLogical = table.getLogicalType();
        LogicalType recordsLogical = records.getLogicalType();
        if (!Objects.equals(tableLogical, recordsLogical)) {
            throw incompatible(path, table, records);
        }
        Schema.Type t = table.getType();
        Schema.Type r = records.getType();
        if (NUMBER_ORDER.contains(t) && NUMBER_ORDER.contains(r) && tableLogical == null) {
            if (NUMBER_ORDER.indexOf(r) <= NUMBER_ORDER.indexOf(t)) {
                return table;
            }
            if (!widening) {
                throw new IncompatibleException(describe(path) + " would widen from " + t.getName() + " to "
                        + r.getName() + ", and a columnar (Parquet or ORC) table's files keep the type they were "
                        + "written with, which "
                        + "not every reader converts (Spark 3 does not). Land the wider records in a new table, or "
                        + "send " + r.getName() + " values as " + t.getName() + " upstream");
            }
            changes.add(describe(path) + " widened from " + t.getName() + " to " + r.getName());
            return Schema.create(r);
        }
        if (t != r) {
            throw incompatible(path, table, records);
        }
        switch (t) {
            case RECORD:
                return mergeRecord(table, records, path);
            case ARRAY: {
                Schema element = merge(table.getElementType(), records.getElementType(), path + "[]");
                return element == table.getElementType() ? table : copyProps(table, Schema.createArray(element));
            }
            case MAP: {
                Schema value = merge(table.getValueType(), records.getValueType(), path + "{}");
                return value == table.getValueType() ? table : copyProps(table, Schema.createMap(value));
            }
            case ENUM: {
                Set<String> symbols = new LinkedHashSet<>(table.getEnumSymbols());
                if (symbols.containsAll(records.getEnumSymbols())) {
                    return table;
                }
                symbols.addAll(records.getEnumSymbols());
                changes.add(describe(path) + " gained enum symbols");
                return copyProps(table, Schema.createEnum(table.getName(), table.getDoc(), table.getNamespace(),
                        new ArrayList<>(symbols), table.getEnumDefault()));
            }
            case FIXED:
                if (table.getFixedSize() == records.getFixedSize()
                        && table.getFullName().equals(records.getFullName())) {
                    return table;
                }
                throw incompatible(path, table, records);
            case UNION:
                throw incompatible(path, table, records);
            default:
                if (tableLogical != null) {
                    throw incompatible(path, table, records);
                }
                return table; // same primitive, differing only in properties
        }
    }

    private Schema mergeRecord(Schema table, Schema records, String path) {
        List<Schema.Field> fields = new ArrayList<>();
        boolean changed = false;
        for (Schema.Field tableField : table.getFields()) {
            Schema.Field recordsField = records.getField(tableField.name());
            String fieldPath = path.isEmpty() ? tableField.name() : path + "." + tableField.name();
            if (recordsField == null) {
                if (tableField.hasDefaultValue()) {
                    fields.add(copy(tableField, tableField.schema(), tableField.defaultVal()));
                    continue;
                }
                changes.add("column " + fieldPath + " is no longer in the records: it became optional");
                fields.add(copy(tableField, optional(tableField.schema()), JsonProperties.NULL_VALUE));
                changed = true;
                continue;
            }
            Schema merged = merge(tableField.schema(), recordsField.schema(), fieldPath);
            Object defaultValue = tableField.hasDefaultValue() ? tableField.defaultVal()
                    : recordsField.hasDefaultValue() ? recordsField.defaultVal() : null;
            if (merged.getType() == Schema.Type.UNION && merged != tableField.schema()) {
                merged = unionFor(merged, defaultValue);
                if (defaultValue == null) {
                    defaultValue = JsonProperties.NULL_VALUE;
                }
            }
            changed |= merged != tableField.schema();
            fields.add(copy(tableField, merged, defaultValue));
        }
        for (Schema.Field recordsField : records.getFields()) {
            if (table.getField(recordsField.name()) != null) {
                continue;
            }
            String fieldPath = path.isEmpty() ? recordsField.name() : path + "." + recordsField.name();
            for (Schema.Field tableField : table.getFields()) {
                if (tableField.name().equalsIgnoreCase(recordsField.name())) {
                    throw new IncompatibleException("field " + fieldPath + " of the records and column "
                            + (path.isEmpty() ? "" : path + ".") + tableField.name() + " of the table differ only "
                            + "by case, and Hive column names are case-insensitive: they would be one column. "
                            + "Rename the field upstream to " + tableField.name()
                            + " (the ReplaceField transform)");
                }
            }
            Schema schema = recordsField.schema();
            Object defaultValue = recordsField.hasDefaultValue() ? recordsField.defaultVal() : null;
            if (defaultValue == null) {
                if (nonNull(schema) == schema) {
                    throw new IncompatibleException("new column " + fieldPath + " is required and has no default, "
                            + "so the table's existing rows would have no value for it. Make the field optional "
                            + "or give it a default");
                }
                schema = unionFor(schema, null);
                defaultValue = JsonProperties.NULL_VALUE;
            }
            changes.add("column " + fieldPath + " added");
            fields.add(copy(recordsField, schema, defaultValue));
            changed = true;
        }
        if (!changed) {
            return table;
        }
        Schema record = Schema.createRecord(table.getName(), table.getDoc(), table.getNamespace(), false, fields);
        table.getAliases().forEach(record::addAlias);
        if (!records.getFullName().equals(table.getFullName())) {
            record.addAlias(records.getFullName());
        }
        return copyProps(table, record);
    }

    /** A union of null and the other branch, null first unless the default is a value of the other branch. */
    private static Schema unionFor(Schema union, Object defaultValue) {
        Schema base = nonNull(union);
        boolean valueDefault = defaultValue != null && defaultValue != JsonProperties.NULL_VALUE;
        return valueDefault ? Schema.createUnion(base, Schema.create(Schema.Type.NULL))
                : Schema.createUnion(Schema.create(Schema.Type.NULL), base);
    }

    private static Schema optional(Schema schema) {
        return nonNull(schema) != schema ? unionFor(schema, null)
                : Schema.createUnion(Schema.create(Schema.Type.NULL), schema);
    }

    /** The union with its non-null branch replaced, in the union's own branch order. */
    private static Schema nullableLike(Schema union, Schema base) {
        List<Schema> branches = new ArrayList<>();
        for (Schema branch : union.getTypes()) {
            branches.add(branch.getType() == Schema.Type.NULL ? branch : base);
        }
        return Schema.createUnion(branches);
    }

    /** The non-null branch of a union of null and one type; the schema itself otherwise. */
    static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION || schema.getTypes().size() != 2) {
            return schema;
        }
        Schema first = schema.getTypes().get(0);
        Schema second = schema.getTypes().get(1);
        if (first.getType() == Schema.Type.NULL) {
            return second;
        }
        return second.getType() == Schema.Type.NULL ? first : schema;
    }

    private static Schema.Field copy(Schema.Field field, Schema schema, Object defaultValue) {
        Schema.Field copy = new Schema.Field(field.name(), schema, field.doc(), defaultValue, field.order());
        field.aliases().forEach(copy::addAlias);
        field.getObjectProps().forEach(copy::addProp);
        return copy;
    }

    private static Schema copyProps(Schema from, Schema to) {
        from.getObjectProps().forEach((k, v) -> {
            if (to.getObjectProp(k) == null) {
                to.addProp(k, v);
            }
        });
        if (from.getLogicalType() != null && to.getLogicalType() == null) {
            from.getLogicalType().addToSchema(to);
        }
        return to;
    }

    private static String describe(String path) {
        return path.isEmpty() ? "the record" : "column " + path;
    }

    private static IncompatibleException incompatible(String path, Schema table, Schema records) {
        return new IncompatibleException(describe(path) + " is " + typeName(table) + " in the table but "
                + typeName(records) + " in the records; only optional or defaulted new columns, wider numbers "
                + "(int, long, float, double), optional instead of required, and new enum symbols are compatible");
    }

    private static String typeName(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        return logical != null ? schema.getType().getName() + " (" + logical.getName() + ")"
                : schema.getType().getName();
    }
}
