package io.hivesink.avro.encode;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.util.Utf8;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Converts Connect values into the Avro datums of the schema {@link ConnectSchemaMapper} made for them: records as
 * {@link GenericData.Record}, logical types in their Avro representation (decimal as unscaled big-endian bytes, date
 * as days, time as milliseconds of the day, timestamp as epoch milliseconds).
 */
public final class ConnectValueConverter {

    private ConnectValueConverter() {
    }

    /** Converts a struct to a record of {@code avro}, skipping Connect fields the Avro record does not have. */
    public static GenericData.Record convertRecord(Struct struct, Schema avro) {
        return record(struct, avro, "");
    }

    static Object convertForDefault(org.apache.kafka.connect.data.Schema connect, Schema avro, Object value) {
        return convert(connect, avro, value, "default");
    }

    private static GenericData.Record record(Struct struct, Schema avro, String path) {
        GenericData.Record record = new GenericData.Record(avro);
        org.apache.kafka.connect.data.Schema connect = struct.schema();
        for (Schema.Field avroField : avro.getFields()) {
            Field field = connect.field(avroField.name());
            Object value = struct.get(field);
            record.put(avroField.pos(), convert(field.schema(), avroField.schema(), value,
                    path.isEmpty() ? field.name() : path + "." + field.name()));
        }
        return record;
    }

    private static Object convert(org.apache.kafka.connect.data.Schema connect, Schema avro, Object value,
            String path) {
        if (avro.getType() == Schema.Type.UNION) {
            if (value == null) {
                return null;
            }
            avro = nonNullBranch(avro);
        }
        if (value == null) {
            throw new DataException("Field " + path + " is null but its schema is not optional.");
        }
        String logical = connect.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            return ByteBuffer.wrap(LogicalValues.decimalBytes((BigDecimal) value,
                    (LogicalTypes.Decimal) avro.getLogicalType(), path));
        }
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            return LogicalValues.epochDays((java.util.Date) value, path);
        }
        if (org.apache.kafka.connect.data.Time.LOGICAL_NAME.equals(logical)) {
            return LogicalValues.millisOfDay((java.util.Date) value);
        }
        if (org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME.equals(logical)) {
            return LogicalValues.epochMillis((java.util.Date) value, path);
        }
        switch (connect.type()) {
            case INT8:
            case INT16:
            case INT32:
                return ((Number) value).intValue();
            case INT64:
                return ((Number) value).longValue();
            case FLOAT32:
                return ((Number) value).floatValue();
            case FLOAT64:
                return ((Number) value).doubleValue();
            case BOOLEAN:
                return value;
            case STRING:
                return new Utf8((String) value);
            case BYTES:
                return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : ((ByteBuffer) value).duplicate();
            case ARRAY: {
                Collection<?> items = (Collection<?>) value;
                Schema elementSchema = avro.getElementType();
                GenericData.Array<Object> array = new GenericData.Array<>(items.size(), avro);
                int i = 0;
                for (Object item : items) {
                    array.add(convert(connect.valueSchema(), elementSchema, item, path + "[" + i++ + "]"));
                }
                return array;
            }
            case MAP:
                return map(connect, avro, (Map<?, ?>) value, path);
            case STRUCT:
                return record((Struct) value, avro, path);
            default:
                throw new DataException("Field " + path + " has Connect type " + connect.type()
                        + ", which has no Avro mapping.");
        }
    }

    private static Object map(org.apache.kafka.connect.data.Schema connect, Schema avro, Map<?, ?> map, String path) {
        if (avro.getType() == Schema.Type.MAP) {
            Map<Utf8, Object> out = new LinkedHashMap<>(map.size() * 2); // keeps the encoding deterministic
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String key = (String) entry.getKey();
                out.put(new Utf8(key), convert(connect.valueSchema(), avro.getValueType(), entry.getValue(),
                        path + "[" + key + "]"));
            }
            return out;
        }
        // Non-string keys: an array of {key, value} records, the form Hive and Avro both accept.
        Schema entrySchema = avro.getElementType();
        List<Object> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            GenericData.Record record = new GenericData.Record(entrySchema);
            record.put(0, convert(connect.keySchema(), entrySchema.getField("key").schema(), entry.getKey(),
                    path + ".key"));
            record.put(1, convert(connect.valueSchema(), entrySchema.getField("value").schema(), entry.getValue(),
                    path + "[" + entry.getKey() + "]"));
            entries.add(record);
        }
        return new GenericData.Array<>(avro, entries);
    }

    static Schema nonNullBranch(Schema union) {
        for (Schema branch : union.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                return branch;
            }
        }
        throw new IllegalArgumentException("Union without a non-null branch: " + union);
    }
}
