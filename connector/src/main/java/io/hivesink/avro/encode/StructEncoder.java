package io.hivesink.avro.encode;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Encodes Connect structs straight to Avro binary, with no GenericRecord in between. The plan (one small writer per
 * field, chosen from the Connect and Avro schemas) is compiled once per schema; encoding a record is then a loop over
 * it. The bytes are exactly those of converting the struct with {@link ConnectValueConverter} and writing the
 * result with Avro's {@code GenericDatumWriter}. Immutable and thread-safe once compiled.
 */
public final class StructEncoder {

    @FunctionalInterface
    private interface ValueWriter {
        void write(Object value, ByteSink out);
    }

    private final RecordWriter root;
    private final Schema avroSchema;

    private StructEncoder(RecordWriter root, Schema avroSchema) {
        this.root = root;
        this.avroSchema = avroSchema;
    }

    /**
     * Compiles the encoder of records of one Connect schema into one Avro schema.
     *
     * @param connect the records' Connect schema
     * @param avro the Avro record schema {@link ConnectSchemaMapper} made from it (possibly without some fields)
     */
    public static StructEncoder compile(org.apache.kafka.connect.data.Schema connect, Schema avro) {
        return new StructEncoder(record(connect, avro, ""), avro);
    }

    public Schema avroSchema() {
        return avroSchema;
    }

    /** Appends the encoding of {@code value} to {@code out}. On a DataException, {@code out} holds a partial datum. */
    public void encode(Struct value, ByteSink out) {
        root.write(value, out);
    }

    /**
     * A record's fields in one loop: primitives are encoded inline by a switch on their kind, so the hot path has no
     * megamorphic calls; only nested arrays, maps and records go through a writer object.
     */
    private static final class RecordWriter implements ValueWriter {
        static final byte INT = 0;
        static final byte LONG = 1;
        static final byte FLOAT = 2;
        static final byte DOUBLE = 3;
        static final byte BOOLEAN = 4;
        static final byte STRING = 5;
        static final byte OTHER = 6;

        private final Field[] fields;
        private final byte[] kinds;
        /** Union branch index of null, or -1 when the field is not nullable. */
        private final int[] nullBranch;
        private final ValueWriter[] others;
        private final String[] paths;

        RecordWriter(Field[] fields, byte[] kinds, int[] nullBranch, ValueWriter[] others, String[] paths) {
            this.fields = fields;
            this.kinds = kinds;
            this.nullBranch = nullBranch;
            this.others = others;
            this.paths = paths;
        }

        @Override
        public void write(Object value, ByteSink out) {
            Struct struct = (Struct) value;
            for (int i = 0; i < fields.length; i++) {
                Object v = struct.get(fields[i]);
                int nullIndex = nullBranch[i];
                if (v == null) {
                    if (nullIndex < 0) {
                        throw new DataException("Field " + paths[i] + " is null but its schema is not optional.");
                    }
                    out.writeInt(nullIndex);
                    continue;
                }
                if (nullIndex >= 0) {
                    out.writeInt(1 - nullIndex);
                }
                switch (kinds[i]) {
                    case INT -> out.writeInt(((Number) v).intValue());
                    case LONG -> out.writeLong(((Number) v).longValue());
                    case FLOAT -> out.writeFloat(((Number) v).floatValue());
                    case DOUBLE -> out.writeDouble(((Number) v).doubleValue());
                    case BOOLEAN -> out.writeBoolean((Boolean) v);
                    case STRING -> out.writeString((String) v);
                    default -> others[i].write(v, out);
                }
            }
        }
    }

    private static RecordWriter record(org.apache.kafka.connect.data.Schema connect, Schema avro, String path) {
        List<Schema.Field> avroFields = avro.getFields();
        int n = avroFields.size();
        Field[] fields = new Field[n];
        byte[] kinds = new byte[n];
        int[] nullBranch = new int[n];
        ValueWriter[] others = new ValueWriter[n];
        String[] paths = new String[n];
        for (int i = 0; i < n; i++) {
            Schema.Field avroField = avroFields.get(i);
            Field field = connect.field(avroField.name());
            if (field == null) {
                throw new IllegalArgumentException("Avro field " + avroField.name() + " has no Connect field");
            }
            fields[i] = field;
            paths[i] = path.isEmpty() ? field.name() : path + "." + field.name();
            Schema fieldSchema = avroField.schema();
            nullBranch[i] = -1;
            if (fieldSchema.getType() == Schema.Type.UNION) {
                nullBranch[i] = fieldSchema.getTypes().get(0).getType() == Schema.Type.NULL ? 0 : 1;
                fieldSchema = fieldSchema.getTypes().get(1 - nullBranch[i]);
            }
            kinds[i] = kind(field.schema());
            if (kinds[i] == RecordWriter.OTHER) {
                others[i] = nonNull(field.schema(), fieldSchema, paths[i]);
            }
        }
        return new RecordWriter(fields, kinds, nullBranch, others, paths);
    }

    /** The inline kind of a plain (non-logical) primitive, or OTHER. */
    private static byte kind(org.apache.kafka.connect.data.Schema connect) {
        if (connect.name() != null && connect.name().startsWith("org.apache.kafka.connect.data.")) {
            return RecordWriter.OTHER; // Decimal, Date, Time, Timestamp
        }
        return switch (connect.type()) {
            case INT8, INT16, INT32 -> RecordWriter.INT;
            case INT64 -> RecordWriter.LONG;
            case FLOAT32 -> RecordWriter.FLOAT;
            case FLOAT64 -> RecordWriter.DOUBLE;
            case BOOLEAN -> RecordWriter.BOOLEAN;
            case STRING -> RecordWriter.STRING;
            default -> RecordWriter.OTHER;
        };
    }

    private static ValueWriter value(org.apache.kafka.connect.data.Schema connect, Schema avro, String path) {
        if (avro.getType() == Schema.Type.UNION) {
            List<Schema> branches = avro.getTypes();
            int nullIndex = branches.get(0).getType() == Schema.Type.NULL ? 0 : 1;
            int valueIndex = 1 - nullIndex;
            ValueWriter inner = nonNull(connect, branches.get(valueIndex), path);
            return (v, out) -> {
                if (v == null) {
                    out.writeInt(nullIndex);
                } else {
                    out.writeInt(valueIndex);
                    inner.write(v, out);
                }
            };
        }
        ValueWriter inner = nonNull(connect, avro, path);
        return (v, out) -> {
            if (v == null) {
                throw new DataException("Field " + path + " is null but its schema is not optional.");
            }
            inner.write(v, out);
        };
    }

    private static ValueWriter nonNull(org.apache.kafka.connect.data.Schema connect, Schema avro, String path) {
        String logical = connect.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            LogicalTypes.Decimal decimal = (LogicalTypes.Decimal) avro.getLogicalType();
            return (v, out) -> {
                byte[] bytes = LogicalValues.decimalBytes((BigDecimal) v, decimal, path);
                out.writeBytes(bytes, 0, bytes.length);
            };
        }
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            return (v, out) -> out.writeInt(LogicalValues.epochDays((java.util.Date) v, path));
        }
        if (org.apache.kafka.connect.data.Time.LOGICAL_NAME.equals(logical)) {
            return (v, out) -> out.writeInt(LogicalValues.millisOfDay((java.util.Date) v));
        }
        if (org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME.equals(logical)) {
            return (v, out) -> out.writeLong(LogicalValues.epochMillis((java.util.Date) v, path));
        }
        switch (connect.type()) {
            case INT8:
            case INT16:
            case INT32:
                return (v, out) -> out.writeInt(((Number) v).intValue());
            case INT64:
                return (v, out) -> out.writeLong(((Number) v).longValue());
            case FLOAT32:
                return (v, out) -> out.writeFloat(((Number) v).floatValue());
            case FLOAT64:
                return (v, out) -> out.writeDouble(((Number) v).doubleValue());
            case BOOLEAN:
                return (v, out) -> out.writeBoolean((Boolean) v);
            case STRING:
                return (v, out) -> out.writeString((String) v);
            case BYTES:
                return StructEncoder::writeBytes;
            case ARRAY:
                return array(value(connect.valueSchema(), avro.getElementType(), path + "[]"));
            case MAP:
                return avro.getType() == Schema.Type.MAP
                        ? stringKeyMap(value(connect.valueSchema(), avro.getValueType(), path + "[]"))
                        : entryArrayMap(connect, avro.getElementType(), path);
            case STRUCT:
                return record(connect, avro, path);
            default:
                throw new DataException("Field " + path + " has Connect type " + connect.type()
                        + ", which has no Avro mapping.");
        }
    }

    private static void writeBytes(Object v, ByteSink out) {
        if (v instanceof byte[] bytes) {
            out.writeBytes(bytes, 0, bytes.length);
            return;
        }
        ByteBuffer buffer = ((ByteBuffer) v).duplicate();
        int length = buffer.remaining();
        out.writeInt(length);
        if (buffer.hasArray()) {
            out.writeFixed(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
        } else {
            byte[] copy = new byte[length];
            buffer.get(copy);
            out.writeFixed(copy, 0, length);
        }
    }

    /** Avro arrays and maps: one block with the item count (none when empty), then a zero count. */
    private static ValueWriter array(ValueWriter element) {
        return (v, out) -> {
            Collection<?> items = (Collection<?>) v;
            if (!items.isEmpty()) {
                out.writeLong(items.size());
                for (Object item : items) {
                    element.write(item, out);
                }
            }
            out.writeLong(0);
        };
    }

    private static ValueWriter stringKeyMap(ValueWriter valueWriter) {
        return (v, out) -> {
            Map<?, ?> map = (Map<?, ?>) v;
            if (!map.isEmpty()) {
                out.writeLong(map.size());
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    out.writeString((String) entry.getKey());
                    valueWriter.write(entry.getValue(), out);
                }
            }
            out.writeLong(0);
        };
    }

    private static ValueWriter entryArrayMap(org.apache.kafka.connect.data.Schema connect, Schema entry, String path) {
        ValueWriter keyWriter = value(connect.keySchema(), entry.getField("key").schema(), path + ".key");
        ValueWriter valueWriter = value(connect.valueSchema(), entry.getField("value").schema(), path + "[]");
        return (v, out) -> {
            Map<?, ?> map = (Map<?, ?>) v;
            if (!map.isEmpty()) {
                out.writeLong(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    keyWriter.write(e.getKey(), out);
                    valueWriter.write(e.getValue(), out);
                }
            }
            out.writeLong(0);
        };
    }
}
