package io.hivesink.avro.encode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.errors.DataException;

/**
 * Maps a Connect schema to the Avro schema the connector writes, choosing Avro types that Hive's AvroSerDe reads
 * as the matching Hive type:
 *
 * <table>
 * <caption>Connect to Avro to Hive</caption>
 * <tr><th>Connect</th><th>Avro</th><th>Hive</th></tr>
 * <tr><td>int8, int16, int32</td><td>int</td><td>int</td></tr>
 * <tr><td>int64</td><td>long</td><td>bigint</td></tr>
 * <tr><td>float32 / float64</td><td>float / double</td><td>float / double</td></tr>
 * <tr><td>boolean, string, bytes</td><td>boolean, string, bytes</td><td>boolean, string, binary</td></tr>
 * <tr><td>Decimal</td><td>bytes, logical decimal</td><td>decimal(p,s)</td></tr>
 * <tr><td>Date</td><td>int, logical date</td><td>date</td></tr>
 * <tr><td>Time</td><td>int, logical time-millis</td><td>int (milliseconds of the day)</td></tr>
 * <tr><td>Timestamp</td><td>long, logical timestamp-millis</td><td>timestamp</td></tr>
 * <tr><td>Struct</td><td>record</td><td>struct</td></tr>
 * <tr><td>Array</td><td>array</td><td>array</td></tr>
 * <tr><td>Map with string keys</td><td>map</td><td>map&lt;string,…&gt;</td></tr>
 * <tr><td>Map with other keys</td><td>array of {key, value}
 * records</td><td>array&lt;struct&lt;key,value&gt;&gt;</td></tr>
 * <tr><td>optional T</td><td>union [null, T] (or [T, null] when the default is not null)</td><td>T</td></tr>
 * </table>
 *
 * The original Connect type of a narrowed integer is kept in a {@code connect.type} property so nothing is lost.
 */
public final class ConnectSchemaMapper {

    /** Precision given to Connect decimals that carry none (Hive's maximum). */
    public static final int DEFAULT_DECIMAL_PRECISION = 38;
    static final String CONNECT_DECIMAL_PRECISION = "connect.decimal.precision";
    static final String CONNECT_TYPE_PROP = "connect.type";
    private static final Pattern AVRO_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String namespace;
    private final Map<String, Schema> namedRecords = new HashMap<>();

    private ConnectSchemaMapper(String namespace) {
        this.namespace = namespace;
    }

    /**
     * The Avro record schema for a Connect struct schema, leaving out the top-level fields in {@code excluded}
     * (partition columns, which Hive keeps out of the data).
     *
     * @param recordName the Avro name of the top-level record (the table name)
     */
    public static Schema toAvro(org.apache.kafka.connect.data.Schema connect, String namespace, String recordName,
            Set<String> excluded) {
        if (connect.type() != org.apache.kafka.connect.data.Schema.Type.STRUCT) {
            throw new DataException("The record value must be a Struct, but its schema is " + describe(connect)
                    + ". Use a converter that produces structured values (JsonConverter with schemas.enable=true, "
                    + "or an Avro converter).");
        }
        return new ConnectSchemaMapper(namespace).record(connect, recordName, excluded);
    }

    private Schema record(org.apache.kafka.connect.data.Schema connect, String name, Set<String> excluded) {
        List<Schema.Field> fields = new ArrayList<>();
        Set<String> seenLower = new java.util.HashSet<>();
        for (Field field : connect.fields()) {
            if (excluded.contains(field.name())) {
                continue;
            }
            String fieldName = field.name();
            if (!AVRO_NAME.matcher(fieldName).matches()) {
                throw new DataException("Field '" + fieldName + "' of " + name + " is not a valid Avro/Hive column "
                        + "name (letters, digits and underscores, not starting with a digit). Rename it upstream, "
                        + "for example with the ReplaceField transform.");
            }
            if (!seenLower.add(fieldName.toLowerCase(Locale.ROOT))) {
                throw new DataException("Fields of " + name + " differ only by case ('" + fieldName
                        + "'); Hive column names are case-insensitive.");
            }
            Schema fieldSchema = fieldSchema(field.schema(), name + "_" + fieldName);
            fields.add(new Schema.Field(fieldName, fieldSchema, field.schema().doc(),
                    defaultValue(field.schema(), fieldSchema)));
        }
        String recordName = uniqueRecordName(name);
        Schema record = Schema.createRecord(recordName, connect.doc(), namespace, false, fields);
        namedRecords.put(recordName, record);
        return record;
    }

    private String uniqueRecordName(String preferred) {
        String base = AVRO_NAME.matcher(preferred).matches() ? preferred : sanitize(preferred);
        String candidate = base;
        int suffix = 2;
        while (namedRecords.containsKey(candidate)) {
            candidate = base + "_" + suffix++;
        }
        return candidate;
    }

    private static String sanitize(String name) {
        String cleaned = name.replaceAll("[^A-Za-z0-9_]", "_");
        return Character.isDigit(cleaned.charAt(0)) ? "_" + cleaned : cleaned;
    }

    private Schema fieldSchema(org.apache.kafka.connect.data.Schema connect, String path) {
        Schema base = nonNull(connect, path);
        if (!connect.isOptional()) {
            return base;
        }
        Object defaultValue = connect.defaultValue();
        return defaultValue == null
                ? Schema.createUnion(Schema.create(Schema.Type.NULL), base)
                : Schema.createUnion(base, Schema.create(Schema.Type.NULL));
    }

    private Schema nonNull(org.apache.kafka.connect.data.Schema connect, String path) {
        String logical = connect.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            int scale = Integer.parseInt(connect.parameters().get(Decimal.SCALE_FIELD));
            String precisionParam = connect.parameters() == null ? null
                    : connect.parameters().get(CONNECT_DECIMAL_PRECISION);
            int precision = precisionParam == null ? DEFAULT_DECIMAL_PRECISION : Integer.parseInt(precisionParam);
            if (scale > precision) {
                throw new DataException("Decimal " + path + " has scale " + scale + " above its precision "
                        + precision + ".");
            }
            return LogicalTypes.decimal(precision, scale).addToSchema(Schema.create(Schema.Type.BYTES));
        }
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
        }
        if (org.apache.kafka.connect.data.Time.LOGICAL_NAME.equals(logical)) {
            return LogicalTypes.timeMillis().addToSchema(Schema.create(Schema.Type.INT));
        }
        if (org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME.equals(logical)) {
            return LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
        }
        switch (connect.type()) {
            case INT8:
            case INT16: {
                Schema narrowed = Schema.create(Schema.Type.INT);
                narrowed.addProp(CONNECT_TYPE_PROP, connect.type().getName());
                return narrowed;
            }
            case INT32:
                return Schema.create(Schema.Type.INT);
            case INT64:
                return Schema.create(Schema.Type.LONG);
            case FLOAT32:
                return Schema.create(Schema.Type.FLOAT);
            case FLOAT64:
                return Schema.create(Schema.Type.DOUBLE);
            case BOOLEAN:
                return Schema.create(Schema.Type.BOOLEAN);
            case STRING:
                return Schema.create(Schema.Type.STRING);
            case BYTES:
                return Schema.create(Schema.Type.BYTES);
            case ARRAY:
                return Schema.createArray(fieldSchema(connect.valueSchema(), path + "_element"));
            case MAP:
                if (connect.keySchema().type() == org.apache.kafka.connect.data.Schema.Type.STRING
                        && !connect.keySchema().isOptional()) {
                    return Schema.createMap(fieldSchema(connect.valueSchema(), path + "_value"));
                }
                return Schema.createArray(Schema.createRecord(uniqueRecordName(path + "_entry"), null,
                        namespace, false, List.of(
                                new Schema.Field("key", fieldSchema(connect.keySchema(), path + "_key")),
                                new Schema.Field("value", fieldSchema(connect.valueSchema(), path + "_value")))));
            case STRUCT:
                return record(connect, path, Set.of());
            default:
                throw new DataException("Connect type " + connect.type() + " at " + path + " has no Avro mapping.");
        }
    }

    /** The Avro default (as a JSON-compatible Java value) for a field, or null when it has none. */
    private static Object defaultValue(org.apache.kafka.connect.data.Schema connect, Schema avro) {
        Object value = connect.defaultValue();
        if (value == null) {
            return connect.isOptional() ? JsonProperties.NULL_VALUE : null;
        }
        Schema target = avro.getType() == Schema.Type.UNION ? avro.getTypes().get(0) : avro;
        return jsonDefault(connect, target, value);
    }

    private static Object jsonDefault(org.apache.kafka.connect.data.Schema connect, Schema avro, Object value) {
        if (value == null) {
            return JsonProperties.NULL_VALUE;
        }
        Object datum = ConnectValueConverter.convertForDefault(connect, avro, value);
        return toJsonValue(datum, avro);
    }

    /** Avro's Schema.Field takes defaults as plain Java values: bytes as ISO-8859-1 strings, records as maps. */
    private static Object toJsonValue(Object datum, Schema avro) {
        if (datum == null) {
            return JsonProperties.NULL_VALUE;
        }
        switch (avro.getType()) {
            case BYTES: {
                ByteBuffer buffer = ((ByteBuffer) datum).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            case RECORD: {
                org.apache.avro.generic.GenericRecord record = (org.apache.avro.generic.GenericRecord) datum;
                Map<String, Object> out = new LinkedHashMap<>();
                for (Schema.Field f : avro.getFields()) {
                    Schema fs = f.schema().getType() == Schema.Type.UNION
                            ? unionBranch(f.schema(), record.get(f.pos())) : f.schema();
                    out.put(f.name(), toJsonValue(record.get(f.pos()), fs));
                }
                return out;
            }
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object element : (Collection<?>) datum) {
                    Schema es = avro.getElementType();
                    out.add(toJsonValue(element, es.getType() == Schema.Type.UNION ? unionBranch(es, element) : es));
                }
                return out;
            }
            case MAP: {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) datum).entrySet()) {
                    Schema vs = avro.getValueType();
                    Schema branch = vs.getType() == Schema.Type.UNION ? unionBranch(vs, e.getValue()) : vs;
                    out.put(e.getKey().toString(), toJsonValue(e.getValue(), branch));
                }
                return out;
            }
            default:
                return datum instanceof CharSequence ? datum.toString() : datum;
        }
    }

    private static Schema unionBranch(Schema union, Object datum) {
        for (Schema branch : union.getTypes()) {
            if ((datum == null) == (branch.getType() == Schema.Type.NULL)) {
                return branch;
            }
        }
        return union.getTypes().get(0);
    }

    static String describe(org.apache.kafka.connect.data.Schema schema) {
        return schema.name() != null ? schema.type() + " (" + schema.name() + ")" : String.valueOf(schema.type());
    }
}
