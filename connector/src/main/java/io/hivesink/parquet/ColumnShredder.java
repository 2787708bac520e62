package io.hivesink.parquet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import io.hivesink.format.DatumCursor;
import io.hivesink.format.NullableColumns;
import io.hivesink.format.SignedZeros;

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
     * @param table   the table's schema (a record) the file's columns are of: a field of {@code datums} that is not
     *                one of its columns is skipped; a column the datums lack gets its default, or null
     * @param columns the Parquet schema the store writes (all of the table's columns, or a run of them): a column not
     *                in it is skipped
     * @param store   the column writers of {@code columns}
     * @throws IllegalArgumentException if a field's type in the datums is not its column's (a widened number: the
     *                                  metastore refuses that evolution for a Parquet table)
     */
    static ColumnShredder compile(Schema datums, Schema table, MessageType columns, ColumnWriteStore store) {
        return new ColumnShredder(new Compiler(columns, store).record(datums, table, columns, List.of(), 0, 0));
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

        /**
         * A record value present at levels (def, rep): the datum's fields read in order, each written to its column
         * of {@code group} (by lower-case name); then the table's fields the datum lacks, as their defaults.
         */
        Node record(Schema datum, Schema table, GroupType group, List<String> path, int def, int rep) {
            List<Node> fields = new ArrayList<>();
            List<Node> absent = new ArrayList<>();
            boolean anyWritten = false;
            for (Schema.Field field : datum.getFields()) {
                String name = ParquetSchemas.columnName(field.name());
                Schema.Field tableField = fieldNamed(table, name);
                if (tableField != null && group.containsField(name)) {
                    fields.add(field(field.schema(), tableField.schema(), group.getType(name), append(path, name),
                            def, rep));
                    anyWritten = true;
                } else {
                    fields.add(new Skip(field.schema()));
                }
            }
            for (Schema.Field tableField : table.getFields()) {
                String name = ParquetSchemas.columnName(tableField.name());
                if (fieldNamed(datum, name) == null && group.containsField(name)) {
                    absent.add(absent(tableField, group.getType(name), append(path, name), def, rep));
                    anyWritten = true;
                }
            }
            return anyWritten ? new RecordNode(fields.toArray(new Node[0]), absent.toArray(new Node[0]))
                    : new Skip(datum);
        }

        private static Schema.Field fieldNamed(Schema record, String columnName) {
            for (Schema.Field field : record.getFields()) {
                if (ParquetSchemas.columnName(field.name()).equals(columnName)) {
                    return field;
                }
            }
            return null;
        }

        /** A column the datum lacks: its default, as Avro would resolve it, or null. */
        private Node absent(Schema.Field tableField, Type type, List<String> path, int recordDef, int rep) {
            Node node = field(tableField.schema(), tableField.schema(), type, path, recordDef, rep);
            if (!tableField.hasDefaultValue()) {
                if (type.isRepetition(Type.Repetition.REQUIRED)) {
                    throw new IllegalArgumentException("Column " + path + " is required, has no default, and the "
                            + "records have no such field");
                }
                return new NullNode(node, recordDef);
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
            try {
                new GenericDatumWriter<>(tableField.schema()).write(GenericData.get().getDefaultValue(tableField),
                        encoder);
                encoder.flush();
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("The default of column " + path + " cannot be encoded: "
                        + e.getMessage(), e);
            }
            return new ConstantNode(node, bytes.toByteArray());
        }

        /**
         * A value of {@code datum}'s type read from the datum, written as a value of the table's type in column(s)
         * {@code type}, below a parent present at (parentDef, parentRep).
         */
        Node field(Schema datum, Schema table, Type type, List<String> path, int parentDef, int parentRep) {
            int def = parentDef + (type.isRepetition(Type.Repetition.REQUIRED) ? 0 : 1);
            Schema value = NullableColumns.nonNull(datum);
            Node node = value(value, NullableColumns.nonNull(table), type, path, def, parentRep);
            if (datum.getType() != Schema.Type.UNION) {
                return node;
            }
            if (datum.getTypes().size() == 1) {
                return new BranchNode(node);
            }
            int nullBranch = datum.getTypes().get(0).getType() == Schema.Type.NULL ? 0 : 1;
            return new OptionalNode(nullBranch, node, parentDef);
        }

        private Node value(Schema datum, Schema table, Type type, List<String> path, int def, int rep) {
            switch (datum.getType()) {
                case RECORD:
                    return record(datum, table, type.asGroupType(), path, def, rep);
                case ARRAY: {
                    GroupType repeated = type.asGroupType().getType(ParquetSchemas.LIST_GROUP).asGroupType();
                    Node element = field(datum.getElementType(), table.getElementType(),
                            repeated.getType(ParquetSchemas.LIST_ELEMENT),
                            append(append(path, ParquetSchemas.LIST_GROUP), ParquetSchemas.LIST_ELEMENT), def + 1,
                            rep + 1);
                    return new ListNode(element, def, rep + 1);
                }
                case MAP: {
                    GroupType repeated = type.asGroupType().getType(ParquetSchemas.MAP_GROUP).asGroupType();
                    List<String> entryPath = append(path, ParquetSchemas.MAP_GROUP);
                    Schema string = Schema.create(Schema.Type.STRING);
                    Node key = repeated.containsField(ParquetSchemas.MAP_KEY)
                            ? field(string, string, repeated.getType(ParquetSchemas.MAP_KEY),
                                    append(entryPath, ParquetSchemas.MAP_KEY), def + 1, rep + 1)
                            : new Skip(string);
                    Node mapValue = repeated.containsField(ParquetSchemas.MAP_VALUE)
                            ? field(datum.getValueType(), table.getValueType(),
                                    repeated.getType(ParquetSchemas.MAP_VALUE),
                                    append(entryPath, ParquetSchemas.MAP_VALUE), def + 1, rep + 1)
                            : new Skip(datum.getValueType());
                    return new MapNode(key, mapValue, def, rep + 1);
                }
                default:
                    if (datum.getType() == table.getType()
                            && java.util.Objects.equals(datum.getLogicalType(), table.getLogicalType())) {
                        return leaf(datum, path, def);
                    }
                    if (PromotingLeaf.promotes(datum, table)) {
                        return new PromotingLeaf(writer(path, def), def, datum.getType(), table.getType());
                    }
                    throw new IllegalArgumentException("Column " + path + " is " + table + " in the table and "
                            + datum + " in the records: a Parquet file holds one type per column");
            }
        }

        private ColumnWriter writer(List<String> path, int def) {
            ColumnDescriptor column = schema.getColumnDescription(path.toArray(new String[0]));
            if (column.getMaxDefinitionLevel() != def) {
                throw new IllegalStateException("Column " + path + " has definition level "
                        + column.getMaxDefinitionLevel() + ", not " + def);
            }
            return store.getColumnWriter(column);
        }

        private Node leaf(Schema avro, List<String> path, int def) {
            ColumnDescriptor column = schema.getColumnDescription(path.toArray(new String[0]));
            ColumnWriter writer = writer(path, def);
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

    /** A record: its fields read from the datum in order, then the columns it lacks written from constants. */
    private static final class RecordNode extends Node {
        private final Node[] fields;
        private final Node[] absent;

        RecordNode(Node[] fields, Node[] absent) {
            this.fields = fields;
            this.absent = absent;
        }

        @Override
        void write(DatumCursor in, int r) {
            for (Node field : fields) {
                field.write(in, r);
            }
            for (Node field : absent) {
                field.write(in, r); // reads nothing of the datum
            }
        }

        @Override
        void writeNull(int r, int d) {
            for (Node field : fields) {
                field.writeNull(r, d);
            }
            for (Node field : absent) {
                field.writeNull(r, d);
            }
        }
    }

    /** A column the datum lacks, written from its encoded default. */
    private static final class ConstantNode extends Node {
        private final Node value;
        private final byte[] encoded;
        private final DatumCursor constant = new DatumCursor();

        ConstantNode(Node value, byte[] encoded) {
            this.value = value;
            this.encoded = encoded;
        }

        @Override
        void write(DatumCursor in, int r) {
            constant.reset(encoded, 0, encoded.length);
            value.write(constant, r);
        }

        @Override
        void writeNull(int r, int d) {
            value.writeNull(r, d);
        }
    }

    /** A nullable column the datum lacks and that has no default: null. */
    private static final class NullNode extends Node {
        private final Node value;
        private final int recordDef;

        NullNode(Node value, int recordDef) {
            this.value = value;
            this.recordDef = recordDef;
        }

        @Override
        void write(DatumCursor in, int r) {
            value.writeNull(r, recordDef);
        }

        @Override
        void writeNull(int r, int d) {
            value.writeNull(r, d);
        }
    }

    /** A union of one type: its branch index, then the value. */
    private static final class BranchNode extends Node {
        private final Node value;

        BranchNode(Node value) {
            this.value = value;
        }

        @Override
        void write(DatumCursor in, int r) {
            int branch = in.readInt();
            if (branch != 0) {
                throw new IllegalArgumentException("Union branch " + branch + " of a union of one");
            }
            value.write(in, r);
        }

        @Override
        void writeNull(int r, int d) {
            value.writeNull(r, d);
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
            for (int count = in.blockCount(); count > 0; count = in.blockCount()) {
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
            for (int count = in.blockCount(); count > 0; count = in.blockCount()) {
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

    /** A value this schema does not write: read past. */
    private static final class Skip extends Node {
        private final Schema schema;

        Skip(Schema schema) {
            this.schema = schema;
        }

        @Override
        void write(DatumCursor in, int r) {
            in.skip(schema);
        }

        @Override
        void writeNull(int r, int d) {
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
            writer.write(SignedZeros.unsigned(in.readFloat()), r, def);
        }
    }

    private static final class DoubleLeaf extends Leaf {
        DoubleLeaf(ColumnWriter writer, int def) {
            super(writer, def);
        }

        @Override
        void write(DatumCursor in, int r) {
            writer.write(SignedZeros.unsigned(in.readDouble()), r, def);
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

    /**
     * A number of a narrower type in the records than in the table (int records in a bigint column), widened as
     * Avro's resolution widens it for an Avro table's reader.
     */
    private static final class PromotingLeaf extends Leaf {
        private final Schema.Type from;
        private final Schema.Type to;

        PromotingLeaf(ColumnWriter writer, int def, Schema.Type from, Schema.Type to) {
            super(writer, def);
            this.from = from;
            this.to = to;
        }

        static boolean promotes(Schema datum, Schema table) {
            if (datum.getLogicalType() != null || table.getLogicalType() != null) {
                return false;
            }
            return switch (datum.getType()) {
                case INT -> table.getType() == Schema.Type.LONG || table.getType() == Schema.Type.FLOAT
                        || table.getType() == Schema.Type.DOUBLE;
                case LONG -> table.getType() == Schema.Type.FLOAT || table.getType() == Schema.Type.DOUBLE;
                case FLOAT -> table.getType() == Schema.Type.DOUBLE;
                default -> false;
            };
        }

        @Override
        void write(DatumCursor in, int r) {
            if (from == Schema.Type.FLOAT) {
                writer.write((double) SignedZeros.unsigned(in.readFloat()), r, def);
                return;
            }
            long value = in.readLong(); // ints and longs share Avro's encoding
            switch (to) {
                case LONG -> writer.write(value, r, def);
                case FLOAT -> writer.write((float) value, r, def);
                default -> writer.write((double) value, r, def);
            }
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
