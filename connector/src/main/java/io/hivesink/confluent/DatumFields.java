package io.hivesink.confluent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Reads a few top-level fields of an Avro datum (the ones routing and partitioning need) without materialising the
 * rest: Avro's resolving reader, given a reader schema of only those fields, skips every other field of the writer
 * schema. The fields come back as a Connect {@link Struct}, so the partitioners that work on Connect data work on
 * passed-through datums too. Built once per writer schema; thread-safe.
 */
public final class DatumFields {

    private final GenericDatumReader<GenericRecord> reader;
    private final org.apache.kafka.connect.data.Schema connectSchema;
    private final List<Schema.Field> fields;

    private DatumFields(GenericDatumReader<GenericRecord> reader, org.apache.kafka.connect.data.Schema connectSchema,
            List<Schema.Field> fields) {
        this.reader = reader;
        this.connectSchema = connectSchema;
        this.fields = fields;
    }

    /**
     * @throws DataException if a field is not a top-level field of the writer schema, or has a type that cannot
     *     route or partition (a record, array, map, bytes or a union of several types)
     */
    public static DatumFields of(Schema writer, Collection<String> names) {
        if (writer.getType() != Schema.Type.RECORD) {
            throw new DataException("The writer schema is a " + writer.getType() + ", not a record: " + writer);
        }
        List<Schema.Field> projected = new ArrayList<>();
        SchemaBuilder connect = SchemaBuilder.struct().name(writer.getFullName());
        for (String name : names) {
            Schema.Field field = writer.getField(name);
            if (field == null) {
                throw new DataException("Field '" + name + "' is not a top-level field of the writer schema "
                        + writer.getFullName() + " (fields: " + writer.getFields().stream().map(Schema.Field::name)
                        .toList() + ").");
            }
            projected.add(new Schema.Field(field.name(), field.schema(), field.doc()));
            connect.field(field.name(), connectType(field.name(), field.schema()));
        }
        Schema projection = Schema.createRecord(writer.getName(), writer.getDoc(), writer.getNamespace(), false,
                projected);
        return new DatumFields(new GenericDatumReader<>(writer, projection), connect.build(), List.copyOf(projected));
    }

    /** The Connect schema of the structs {@link #read} returns. */
    public org.apache.kafka.connect.data.Schema connectSchema() {
        return connectSchema;
    }

    /**
     * @throws DataException if the datum is truncated or does not follow the writer schema
     */
    public Struct read(byte[] value, int offset, int length) {
        GenericRecord record;
        try {
            record = reader.read(null, DecoderFactory.get().binaryDecoder(value, offset, length, null));
        } catch (IOException | RuntimeException e) {
            throw new DataException("The Avro datum (" + length + " bytes) does not follow its writer schema "
                    + reader.getSchema().getFullName() + ": " + e, e);
        }
        Struct struct = new Struct(connectSchema);
        for (Schema.Field field : fields) {
            struct.put(field.name(), connectValue(record.get(field.pos()), nonNull(field.schema())));
        }
        return struct;
    }

    private static org.apache.kafka.connect.data.Schema connectType(String name, Schema avro) {
        Schema base = nonNull(avro);
        SchemaBuilder type;
        LogicalType logical = base.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMillis || logical instanceof LogicalTypes.TimestampMicros) {
            type = org.apache.kafka.connect.data.Timestamp.builder();
        } else if (logical instanceof LogicalTypes.Date) {
            type = org.apache.kafka.connect.data.Date.builder();
        } else {
            type = switch (base.getType()) {
                case STRING, ENUM -> SchemaBuilder.string();
                case INT -> SchemaBuilder.int32();
                case LONG -> SchemaBuilder.int64();
                case BOOLEAN -> SchemaBuilder.bool();
                case FLOAT -> SchemaBuilder.float32();
                case DOUBLE -> SchemaBuilder.float64();
                default -> throw new DataException("Field '" + name + "' is " + avro + "; routing and "
                        + "partitioning read strings, enums, numbers, booleans, dates and timestamps.");
            };
        }
        return base != avro ? type.optional().build() : type.build();
    }

    private static Object connectValue(Object value, Schema avro) {
        if (value == null) {
            return null;
        }
        LogicalType logical = avro.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return new java.util.Date((Long) value);
        }
        if (logical instanceof LogicalTypes.TimestampMicros) {
            return new java.util.Date(Math.floorDiv((Long) value, 1000L));
        }
        if (logical instanceof LogicalTypes.Date) {
            return new java.util.Date((Integer) value * 86_400_000L);
        }
        return value instanceof CharSequence || value instanceof org.apache.avro.generic.GenericEnumSymbol<?>
                ? value.toString() : value;
    }

    /** The non-null branch of a union of null and one type; the schema itself otherwise (a wider union fails). */
    private static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        List<Schema> types = schema.getTypes();
        if (types.size() == 2 && types.get(0).getType() == Schema.Type.NULL) {
            return types.get(1);
        }
        if (types.size() == 2 && types.get(1).getType() == Schema.Type.NULL) {
            return types.get(0);
        }
        return schema;
    }
}
