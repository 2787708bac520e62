package io.hivesink.parquet;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Writes Avro-encoded datums straight into Parquet column writers, with each value's repetition and definition levels
 * (the Dremel encoding): compiled once per (datum schema, columns) into a tree of nodes that read the datum in order,
 * so that no record object is built. A column not in the Parquet schema it is compiled against (a field that is not a
 * table column, or a column another thread writes) is read past, not decoded.
 */
final class ColumnShredder {

    private static final long MILLIS_PER_DAY = 86_400_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** The Julian day number of 1970-01-01, which INT96 timestamps count days from. */
    private static final int JULIAN_EPOCH_DAY = 2_440_588;

    private final Node root;

    private ColumnShredder(Node root) {
        this.root = root;
    }

    /**
     * @param datums  the schema the datums are encoded with (a record)
     * @param columns the Parquet schema the store writes: a field of {@code datums} that has no column in it is skipped
     * @param store   the column writers of {@code columns}
     */
    static ColumnShredder compile(Schema datums, MessageType columns, ColumnWriteStore store) {
        return new ColumnShredder(new Compiler(columns, store).record(datums, columns, List.of(), 0, 0));
    }

    /** Writes one datum, a record of the datum schema; the caller ends the record in the store. */
    void write(DatumCursor datum) {
        root.write(datum, 0);
        if (!datum.atEnd()) {
            throw new IllegalArgumentException("The Avro datum is longer than its schema reads");
        }
    }

    /** One Avro value: written from the datum at repetition level {@code r}, or absent at levels (r, d). */
    private abstract static class Node {
        abstract void write(DatumCursor in, int r);

        abstract void writeNull(int r, int d);
    }

    private static final class Compiler {
        private final MessageType schema;
        private final ColumnWriteStore store;

        Compiler(MessageType schema, ColumnWriteStore store) {
            this.schema = schema;
            this.store = store;
        }

        /** A record value present at levels (def, rep), its fields matched by name with {@code group}'s. */
        Node record(Schema avro, GroupType group, List<String> path, int def, int rep) {
            List<Node> fields = new ArrayList<>();
            boolean anyWritten = false;
            for (Schema.Field field : avro.getFields()) {
                String name = ParquetSchemas.columnName(field.name());
                if (group.containsField(name)) {
                    fields.add(field(field.schema(), group.getType(name), append(path, name), def, rep));
                    anyWritten = true;
                } else {
                    fields.add(new Skip(field.schema()));
                }
            }
            return anyWritten ? new RecordNode(fields.toArray(new Node[0])) : new Skip(avro);
        }

        /** A value of {@code avro} whose Parquet type is {@code type}, below a parent present at (parentDef, rep). */
        Node field(Schema avro, Type type, List<String> path, int parentDef, int parentRep) {
            int def = parentDef + (type.isRepetition(Type.Repetition.REQUIRED) ? 0 : 1);
            Schema value = ParquetSchemas.nonNull(avro);
            Node node = value(value, type, path, def, parentRep);
            if (avro.getType() != Schema.Type.UNION) {
                return node;
            }
            int nullBranch = avro.getTypes().get(0).getType() == Schema.Type.NULL ? 0 : 1;
            return new OptionalNode(nullBranch, node, parentDef);
        }

        private Node value(Schema avro, Type type, List<String> path, int def, int rep) {
            switch (avro.getType()) {
                case RECORD:
                    return record(avro, type.asGroupType(), path, def, rep);
                case ARRAY: {
                    GroupType repeated = type.asGroupType().getType(ParquetSchemas.LIST_GROUP).asGroupType();
                    Node element = field(avro.getElementType(), repeated.getType(ParquetSchemas.LIST_ELEMENT),
                            append(append(path, ParquetSchemas.LIST_GROUP), ParquetSchemas.LIST_ELEMENT), def + 1,
                            rep + 1);
                    return new ListNode(element, def, rep + 1);
                }
                case MAP: {
                    GroupType repeated = type.asGroupType().getType(ParquetSchemas.MAP_GROUP).asGroupType();
                    List<String> entryPath = append(path, ParquetSchemas.MAP_GROUP);
                    Node key = repeated.containsField(ParquetSchemas.MAP_KEY)
                            ? field(Schema.create(Schema.Type.STRING), repeated.getType(ParquetSchemas.MAP_KEY),
                                    append(entryPath, ParquetSchemas.MAP_KEY), def + 1, rep + 1)
                            : new Skip(Schema.create(Schema.Type.STRING));
                    Node mapValue = repeated.containsField(ParquetSchemas.MAP_VALUE)
                            ? field(avro.getValueType(), repeated.getType(ParquetSchemas.MAP_VALUE),
                                    append(entryPath, ParquetSchemas.MAP_VALUE), def + 1, rep + 1)
                            : new Skip(avro.getValueType());
                    return new MapNode(key, mapValue, def, rep + 1);
                }
                default:
                    return leaf(avro, path, def);
            }
        }

        private Node leaf(Schema avro, List<String> path, int def) {
            ColumnDescriptor column = schema.getColumnDescription(path.toArray(new String[0]));
            if (column.getMaxDefinitionLevel() != def) {
                throw new IllegalStateException("Column " + path + " has definition level "
                        + column.getMaxDefinitionLevel() + ", not " + def);
            }
            ColumnWriter writer = store.getColumnWriter(column);
            LogicalType logical = avro.getLogicalType();
            if (logical instanceof LogicalTypes.Decimal) {
                return new DecimalLeaf(writer, def, avro.getType() == Schema.Type.FIXED ? avro.getFixedSize() : -1,
                        column.getPrimitiveType().getTypeLength());
            }
            if (logical instanceof LogicalTypes.TimestampMillis) {
                return new TimestampLeaf(writer, def);
            }
            return switch (avro.getType()) {
                case INT -> new IntLeaf(writer, def);
                case LONG -> new LongLeaf(writer, def);
                case FLOAT -> new FloatLeaf(writer, def);
                case DOUBLE -> new DoubleLeaf(writer, def);
                case BOOLEAN -> new BooleanLeaf(writer, def);
                case STRING, BYTES -> new BytesLeaf(writer, def);
                case FIXED -> new FixedLeaf(writer, def, avro.getFixedSize());
                case ENUM -> new EnumLeaf(writer, def, avro.getEnumSymbols());
                default -> throw new IllegalArgumentException("Avro type " + avro.getType() + " has no column");
            };
        }

        private static List<String> append(List<String> path, String name) {
            List<String> longer = new ArrayList<>(path);
            longer.add(name);
            return longer;
        }
    }

    private static final class RecordNode extends Node {
        private final Node[] fields;

        RecordNode(Node[] fields) {
            this.fields = fields;
        }

        @Override
        void write(DatumCursor in, int r) {
            for (Node field : fields) {
                field.write(in, r);
            }
        }

        @Override
        void writeNull(int r, int d) {
            for (Node field : fields) {
                field.writeNull(r, d);
            }
        }
    }

    /** A union of null and one type. */
    private static final class OptionalNode extends Node {
        private final int nullBranch;
        private final Node value;
        private final int parentDef;

        OptionalNode(int nullBranch, Node value, int parentDef) {
            this.nullBranch = nullBranch;
            this.value = value;
            this.parentDef = parentDef;
        }

        @Override
        void write(DatumCursor in, int r) {
            int branch = in.readInt();
            if (branch == nullBranch) {
                value.writeNull(r, parentDef);
            } else if (branch == 1 - nullBranch) {
                value.write(in, r);
            } else {
                throw new IllegalArgumentException("Union branch " + branch + " of a union of two");
            }
        }

        @Override
        void writeNull(int r, int d) {
            value.writeNull(r, d);
        }
    }

    /** An array: its first element at the array's level, the rest at the list's; an empty array is one null. */
    private static final class ListNode extends Node {
        private final Node element;
        private final int def;
        private final int elementRep;

        ListNode(Node element, int def, int elementRep) {
            this.element = element;
            this.def = def;
            this.elementRep = elementRep;
        }

        @Override
        void write(DatumCursor in, int r) {
            int level = r;
            for (int count = blockCount(in); count > 0; count = blockCount(in)) {
                for (int i = 0; i < count; i++) {
                    element.write(in, level);
                    level = elementRep;
                }
            }
            if (level == r) {
                element.writeNull(r, def);
            }
        }

        @Override
        void writeNull(int r, int d) {
            element.writeNull(r, d);
        }
    }

    private static final class MapNode extends Node {
        private final Node key;
        private final Node value;
        private final int def;
        private final int entryRep;

        MapNode(Node key, Node value, int def, int entryRep) {
            this.key = key;
            this.value = value;
            this.def = def;
            this.entryRep = entryRep;
        }

        @Override
        void write(DatumCursor in, int r) {
            int level = r;
            boolean empty = true;
            for (int count = blockCount(in); count > 0; count = blockCount(in)) {
                for (int i = 0; i < count; i++) {
                    key.write(in, level);
                    value.write(in, level);
                    level = entryRep;
                    empty = false;
                }
            }
            if (empty) {
                key.writeNull(r, def);
                value.writeNull(r, def);
            }
        }

        @Override
        void writeNull(int r, int d) {
            key.writeNull(r, d);
            value.writeNull(r, d);
        }
    }

    /** The item count of the next array or map block (0 at the end), past its byte size if it has one. */
    static int blockCount(DatumCursor in) {
        long count = in.readLong();
        if (count < 0) {
            in.readLong(); // the block's byte size, written with a negative count
            count = -count;
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("An Avro block of " + count + " items");
        }
        return (int) count;
    }

    /** A value this schema does not write: read past. */
    private static final class Skip extends Node {
        private final Schema schema;

        Skip(Schema schema) {
            this.schema = schema;
        }

        @Override
        void write(DatumCursor in, int r) {
            skip(in, schema);
        }

        @Override
        void writeNull(int r, int d) {
        }

        private static void skip(DatumCursor in, Schema schema) {
            switch (schema.getType()) {
                case NULL -> {
                }
                case BOOLEAN -> in.skip(1);
                case INT, LONG, ENUM -> in.readLong();
                case FLOAT -> in.skip(4);
                case DOUBLE -> in.skip(8);
                case STRING, BYTES -> in.skip(in.readLength());
                case FIXED -> in.skip(schema.getFixedSize());
                case RECORD -> schema.getFields().forEach(field -> skip(in, field.schema()));
                case ARRAY -> {
                    for (int count = blockCount(in); count > 0; count = blockCount(in)) {
                        for (int i = 0; i < count; i++) {
                            skip(in, schema.getElementType());
                        }
                    }
                }
                case MAP -> {
                    for (int count = blockCount(in); count > 0; count = blockCount(in)) {
                        for (int i = 0; i < count; i++) {
                            in.skip(in.readLength());
                            skip(in, schema.getValueType());
                        }
                    }
                }
                case UNION -> skip(in, schema.getTypes().get(in.readInt()));
                default -> throw new IllegalArgumentException("Avro type " + schema.getType());
            }
        }
    }

    private abstract static class Leaf extends Node {
        final ColumnWriter writer;
        final int def;

        Leaf(ColumnWriter writer, int def) {
            this.writer = writer;
            this.def = def;
        }

        @Override
        final void writeNull(int r, int d) {
            writer.writeNull(r, d);
        }
    }

    private static final class IntLeaf extends Leaf {
        IntLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(in.readInt(), r, def);
        }
    }

    private static final class LongLeaf extends Leaf {
        LongLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(in.readLong(), r, def);
        }
    }

    private static final class FloatLeaf extends Leaf {
        FloatLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(in.readFloat(), r, def);
        }
    }

    private static final class DoubleLeaf extends Leaf {
        DoubleLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(in.readDouble(), r, def);
        }
    }

    private static final class BooleanLeaf extends Leaf {
        BooleanLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(in.readBoolean(), r, def);
        }
    }

    /** Strings and bytes: a slice of the datum, which outlives the file's writing. */
    private static final class BytesLeaf extends Leaf {
        BytesLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            int length = in.readLength();
            int start = in.position();
            in.skip(length);
            writer.write(Binary.fromConstantByteArray(in.bytes(), start, length), r, def);
        }
    }

    private static final class FixedLeaf extends Leaf {
        private final int size;

        FixedLeaf(ColumnWriter writer, int def, int size) {
            super(writer, def);
            this.size = size;
        }

        @Override
        void write(DatumCursor in, int r) {
            int start = in.position();
            in.skip(size);
            writer.write(Binary.fromConstantByteArray(in.bytes(), start, size), r, def);
        }
    }

    private static final class EnumLeaf extends Leaf {
        private final Binary[] symbols;

        EnumLeaf(ColumnWriter writer, int def, List<String> symbols) {
            super(writer, def);
            this.symbols = symbols.stream().map(s -> Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8)))
                    .toArray(Binary[]::new);
        }

        @Override
        void write(DatumCursor in, int r) {
            int index = in.readInt();
            if (index < 0 || index >= symbols.length) {
                throw new IllegalArgumentException("Enum symbol " + index + " of " + symbols.length);
            }
            writer.write(symbols[index], r, def);
        }
    }

    /** Avro's big-endian two's complement, sign-extended to the column's fixed length. */
    private static final class DecimalLeaf extends Leaf {
        /** The Avro fixed size, or -1 for bytes. */
        private final int avroSize;
        private final int length;

        DecimalLeaf(ColumnWriter writer, int def, int avroSize, int length) {
            super(writer, def);
            this.avroSize = avroSize;
            this.length = length;
        }

        @Override
        void write(DatumCursor in, int r) {
            int size = avroSize >= 0 ? avroSize : in.readLength();
            int start = in.position();
            in.skip(size);
            byte[] bytes = in.bytes();
            if (size == length) {
                writer.write(Binary.fromConstantByteArray(bytes, start, size), r, def);
                return;
            }
            byte sign = size > 0 && bytes[start] < 0 ? (byte) -1 : 0;
            byte[] value = new byte[length];
            if (size < length) {
                java.util.Arrays.fill(value, 0, length - size, sign);
                System.arraycopy(bytes, start, value, length - size, size);
            } else {
                int extra = size - length;
                for (int i = 0; i < extra; i++) {
                    if (bytes[start + i] != sign) {
                        throw new IllegalArgumentException("A decimal of " + size + " bytes does not fit its "
                                + "precision (" + length + " bytes)");
                    }
                }
                if ((bytes[start + extra] < 0) != (sign < 0)) {
                    throw new IllegalArgumentException("A decimal does not fit its precision");
                }
                System.arraycopy(bytes, start + extra, value, 0, length);
            }
            writer.write(Binary.fromConstantByteArray(value), r, def);
        }
    }

    /** Milliseconds since the epoch (UTC) as INT96: nanoseconds of the day, then the Julian day, little-endian. */
    private static final class TimestampLeaf extends Leaf {
        TimestampLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(int96(in.readLong()), r, def);
        }
    }

    static Binary int96(long epochMillis) {
        long day = Math.floorDiv(epochMillis, MILLIS_PER_DAY);
        long nanos = Math.floorMod(epochMillis, MILLIS_PER_DAY) * NANOS_PER_MILLI;
        int julianDay = Math.toIntExact(day + JULIAN_EPOCH_DAY);
        byte[] value = new byte[12];
        for (int i = 0; i < 8; i++) {
            value[i] = (byte) (nanos >>> (8 * i));
        }
        for (int i = 0; i < 4; i++) {
            value[8 + i] = (byte) (julianDay >>> (8 * i));
        }
        return Binary.fromConstantByteArray(value);
    }
}
