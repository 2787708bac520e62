package io.hivesink.avro.datum;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Reads a few top-level fields of an Avro datum (the ones routing and partitioning need) without materialising the
 * rest: one {@link DatumScanner} walk proves the whole datum sound and notes where each field starts, then only the
 * chosen fields are decoded. They come back as a Connect {@link Struct}, so the partitioners that work on Connect
 * data work on passed-through datums too. Built once per writer schema; thread-safe.
 */
public final class DatumFields {

    private final DatumScanner scanner;
    private final org.apache.kafka.connect.data.Schema connectSchema;
    private final List<Schema.Field> fields;
    private final Struct noFields;
    /** 0 to prove the whole datum sound; else how many leading fields to walk to reach the chosen ones. */
    private final int leadingFields;

    private DatumFields(DatumScanner scanner, org.apache.kafka.connect.data.Schema connectSchema,
            List<Schema.Field> fields, boolean wholeDatum) {
        this.scanner = scanner;
        this.connectSchema = connectSchema;
        this.fields = fields;
        this.noFields = new Struct(connectSchema);
        this.leadingFields = wholeDatum ? 0 : 1 + fields.stream().mapToInt(Schema.Field::pos).max().orElse(-1);
    }

    /**
     * A reader of the named fields of datums written with {@code writer}.
     *
     * @throws DataException if a field is not a top-level field of the writer schema, or has a type that cannot
     *     route or partition (a record, array, map, bytes or a union of several types)
     */
    public static DatumFields of(Schema writer, Collection<String> names) {
        return of(writer, names, true);
    }

    /**
     * Like {@link #of}, but {@link #read} walks the datum only as far as the chosen fields, and so proves nothing about
     * the rest: for routing on the task thread, where the encoder's whole read of the same datum follows.
     */
    public static DatumFields peek(Schema writer, Collection<String> names) {
        return of(writer, names, false);
    }

    private static DatumFields of(Schema writer, Collection<String> names, boolean wholeDatum) {
        DatumScanner scanner = DatumScanner.of(writer);
        List<Schema.Field> chosen = new ArrayList<>();
        SchemaBuilder connect = SchemaBuilder.struct().name(writer.getFullName());
        for (String name : names) {
            Schema.Field field = writer.getField(name);
            if (field == null) {
                throw new DataException("Field '" + name + "' is not a top-level field of the writer schema "
                        + writer.getFullName() + " (fields: " + writer.getFields().stream().map(Schema.Field::name)
                        .toList() + ").");
            }
            if (chosen.contains(field)) {
                continue;
            }
            chosen.add(field);
            connect.field(field.name(), connectType(field.name(), field.schema()));
        }
        return new DatumFields(scanner, connect.build(), List.copyOf(chosen), wholeDatum);
    }

    /**
     * The Connect schema of every top-level field of {@code writer} that routing and partitioning can read (the
     * others are left out): what a partitioner is bound to, to learn which fields it needs.
     */
    public static org.apache.kafka.connect.data.Schema readableFields(Schema writer) {
        SchemaBuilder connect = SchemaBuilder.struct().name(writer.getFullName());
        for (Schema.Field field : writer.getFields()) {
            try {
                connect.field(field.name(), connectType(field.name(), field.schema()));
            } catch (DataException notReadable) {
                // a nested record, array, map, bytes or wide union: no partitioner can read it
            }
        }
        return connect.build();
    }

    /** The Connect schema of the structs {@link #read} returns. */
    public org.apache.kafka.connect.data.Schema connectSchema() {
        return connectSchema;
    }

    /**
     * The named fields of one datum, as a Connect struct; the rest of the datum is skipped.
     *
     * @throws DataException if the datum is truncated or does not follow the writer schema (as far as it is walked:
     *     all of it, unless made by {@link #peek})
     */
    public Struct read(byte[] value, int offset, int length) {
        if (fields.isEmpty()) {
            if (leadingFields == 0) {
                scanner.scan(value, offset, length, null);
            }
            return noFields; // holds nothing, so it can be shared
        }
        int[] starts = new int[scanner.fieldCount()];
        if (leadingFields == 0) {
            scanner.scan(value, offset, length, starts);
        } else {
            scanner.scanLeading(value, offset, length, starts, leadingFields);
        }
        Struct struct = new Struct(connectSchema);
        for (Schema.Field field : fields) {
            int start = starts[field.pos()];
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(value, start, offset + length - start, null);
            try {
                struct.put(field.name(), connectValue(decodeValue(decoder, field.schema()), nonNull(field.schema())));
            } catch (IOException e) {
                throw new DataException("Field '" + field.name() + "' of the Avro datum cannot be read: " + e, e);
            }
        }
        return struct;
    }

    /** One value of a type {@link #connectType} accepts; the scan has already proven the bytes sound. */
    private static Object decodeValue(BinaryDecoder decoder, Schema schema) throws IOException {
        return switch (schema.getType()) {
            case UNION -> {
                Schema branch = schema.getTypes().get(decoder.readIndex());
                yield branch.getType() == Schema.Type.NULL ? null : decodeValue(decoder, branch);
            }
            case STRING -> decoder.readString();
            case ENUM -> schema.getEnumSymbols().get(decoder.readEnum());
            case INT -> decoder.readInt();
            case LONG -> decoder.readLong();
            case BOOLEAN -> decoder.readBoolean();
            case FLOAT -> decoder.readFloat();
            case DOUBLE -> decoder.readDouble();
            default -> throw new IllegalStateException("not a readable field type: " + schema);
        };
    }

    @SuppressWarnings("ReferenceEquality") // nonNull returns the schema itself when it is not a nullable union
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
        return value;
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
