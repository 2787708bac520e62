package io.hivesink.orc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.orc.TypeDescription;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DecimalColumnVector;
import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.storage.serde2.io.HiveDecimalWritable;

import io.hivesink.format.DatumCursor;
import io.hivesink.format.NullableColumns;
import io.hivesink.format.SignedZeros;

/**
 * Reads Avro-encoded datums straight into the rows of ORC column vectors: compiled once per (datum schema, table
 * schema) into a tree of nodes that read the datum in order, so that no record object is built. Strings and bytes go
 * in by reference to the datum's bytes, which outlive the stripe. A field that is not a table column is read past; a
 * column the datums lack gets its default, or null, as Avro resolution would give it to an Avro table's reader.
 *
 * <p>Not thread-safe (a default is read through a cursor of its own): one filler per stripe being written.
 */
final class VectorFiller {

    private static final int NANOS_PER_MILLI = 1_000_000;

    private final RecordNode root;

    private VectorFiller(RecordNode root) {
        this.root = root;
    }

    /**
     * @param datums the schema the datums are encoded with (a record)
     * @param table  the table's schema (a record), which the file's columns ({@link OrcSchemas#of}) are of
     * @throws IllegalArgumentException if a field's type in the datums is not its column's, and not a number Avro
     *                                  widens to it
     */
    static VectorFiller compile(Schema datums, Schema table) {
        return new VectorFiller(record(datums, table, OrcSchemas.of(table), List.of()));
    }

    /** Reads one datum, a record of the datum schema, into row {@code row} of the batch. */
    void fill(DatumCursor datum, VectorizedRowBatch batch, int row) {
        root.writeFields(datum, batch.cols, row);
        if (!datum.atEnd()) {
            throw new IllegalArgumentException("The Avro datum is longer than its schema reads");
        }
    }

    private static RecordNode record(Schema datum, Schema table, TypeDescription struct, List<String> path) {
        List<String> columns = struct.getFieldNames();
        List<Schema.Field> datumFields = datum.getFields();
        Node[] fields = new Node[datumFields.size()];
        int[] targets = new int[datumFields.size()];
        for (int i = 0; i < fields.length; i++) {
            Schema.Field field = datumFields.get(i);
            String name = OrcSchemas.columnName(field.name());
            Schema.Field tableField = fieldNamed(table, name);
            targets[i] = tableField == null ? -1 : OrcSchemas.indexOf(columns, name);
            fields[i] = targets[i] < 0 ? new Skip(field.schema())
                    : field(field.schema(), tableField.schema(), struct.getChildren().get(targets[i]),
                            append(path, name));
        }
        List<Node> absent = new ArrayList<>();
        List<Integer> absentTargets = new ArrayList<>();
        for (Schema.Field tableField : table.getFields()) {
            String name = OrcSchemas.columnName(tableField.name());
            if (fieldNamed(datum, name) == null) {
                int target = OrcSchemas.indexOf(columns, name);
                absent.add(absent(tableField, struct.getChildren().get(target), append(path, name)));
                absentTargets.add(target);
            }
        }
        return new RecordNode(fields, targets, absent.toArray(new Node[0]),
                absentTargets.stream().mapToInt(Integer::intValue).toArray());
    }

    private static Schema.Field fieldNamed(Schema record, String columnName) {
        for (Schema.Field field : record.getFields()) {
            if (OrcSchemas.columnName(field.name()).equals(columnName)) {
                return field;
            }
        }
        return null;
    }

    /** A column the datum lacks: its default, as Avro would resolve it, or null. */
    private static Node absent(Schema.Field tableField, TypeDescription type, List<String> path) {
        if (!tableField.hasDefaultValue()) {
            return new NullNode();
        }
        Node value = field(tableField.schema(), tableField.schema(), type, path);
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
        return new ConstantNode(value, bytes.toByteArray());
    }

    /** A value of {@code datum}'s type read from the datum, written as a value of the table's type. */
    private static Node field(Schema datum, Schema table, TypeDescription type, List<String> path) {
        Node node = value(NullableColumns.nonNull(datum), NullableColumns.nonNull(table), type, path);
        if (datum.getType() != Schema.Type.UNION) {
            return node;
        }
        if (datum.getTypes().size() == 1) {
            return new BranchNode(node);
        }
        int nullBranch = datum.getTypes().get(0).getType() == Schema.Type.NULL ? 0 : 1;
        return new OptionalNode(nullBranch, node);
    }

    private static Node value(Schema datum, Schema table, TypeDescription type, List<String> path) {
        switch (datum.getType()) {
            case RECORD:
                return new StructNode(record(datum, table, type, path));
            case ARRAY:
                return new ListNode(field(datum.getElementType(), table.getElementType(), type.getChildren().get(0),
                        path));
            case MAP:
                return new MapNode(field(datum.getValueType(), table.getValueType(), type.getChildren().get(1),
                        path));
            default:
                if (datum.getType() == table.getType()
                        && Objects.equals(datum.getLogicalType(), table.getLogicalType())) {
                    return leaf(datum, type);
                }
                Node widened = widening(datum, table);
                if (widened == null) {
                    throw new IllegalArgumentException("Column " + path + " is " + table + " in the table and "
                            + datum + " in the records: an ORC file holds one type per column");
                }
                return widened;
        }
    }

    private static Node leaf(Schema avro, TypeDescription type) {
        LogicalType logical = avro.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal) {
            return new DecimalLeaf(avro.getType() == Schema.Type.FIXED ? avro.getFixedSize() : -1,
                    type.getPrecision(), type.getScale());
        }
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return new TimestampLeaf();
        }
        return switch (avro.getType()) {
            case INT -> new IntLeaf();
            case LONG -> new LongLeaf();
            case FLOAT -> new FloatLeaf();
            case DOUBLE -> new DoubleLeaf();
            case BOOLEAN -> new BooleanLeaf();
            case STRING, BYTES -> new BytesLeaf();
            case FIXED -> new FixedLeaf(avro.getFixedSize());
            case ENUM -> new EnumLeaf(avro.getEnumSymbols());
            default -> throw new IllegalArgumentException("Avro type " + avro.getType() + " has no column");
        };
    }

    /**
     * A number of a narrower type in the records than in the table (int records in a bigint column), widened as
     * Avro's resolution widens it for an Avro table's reader; null if Avro does not widen it.
     */
    private static Node widening(Schema datum, Schema table) {
        if (datum.getLogicalType() != null || table.getLogicalType() != null) {
            return null;
        }
        Schema.Type from = datum.getType();
        Schema.Type to = table.getType();
        boolean integral = from == Schema.Type.INT || from == Schema.Type.LONG;
        if (from == Schema.Type.INT && to == Schema.Type.LONG) {
            return new LongLeaf(); // ints and longs share Avro's encoding
        }
        if (integral && to == Schema.Type.FLOAT) {
            return new IntegralToFloatLeaf(true);
        }
        if (integral && to == Schema.Type.DOUBLE) {
            return new IntegralToFloatLeaf(false);
        }
        if (from == Schema.Type.FLOAT && to == Schema.Type.DOUBLE) {
            return new FloatLeaf();
        }
        return null;
    }

    private static List<String> append(List<String> path, String name) {
        List<String> longer = new ArrayList<>(path);
        longer.add(name);
        return longer;
    }

    private static void setNull(ColumnVector vector, int row) {
        vector.noNulls = false;
        vector.isNull[row] = true;
    }

    /** One Avro value, read from the datum into row {@code row} of a vector. */
    private abstract static class Node {
        abstract void write(DatumCursor in, ColumnVector vector, int row);
    }

    /** A record's fields read in order, each into its column, or past; then the columns it lacks. */
    private static final class RecordNode {
        private final Node[] fields;
        private final int[] targets;
        private final Node[] absent;
        private final int[] absentTargets;

        RecordNode(Node[] fields, int[] targets, Node[] absent, int[] absentTargets) {
            this.fields = fields;
            this.targets = targets;
            this.absent = absent;
            this.absentTargets = absentTargets;
        }

        void writeFields(DatumCursor in, ColumnVector[] columns, int row) {
            for (int i = 0; i < fields.length; i++) {
                int target = targets[i];
                fields[i].write(in, target < 0 ? null : columns[target], row);
            }
            for (int i = 0; i < absent.length; i++) {
                absent[i].write(in, columns[absentTargets[i]], row); // reads nothing of the datum
            }
        }
    }

    private static final class StructNode extends Node {
        private final RecordNode record;

        StructNode(RecordNode record) {
            this.record = record;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            record.writeFields(in, ((StructColumnVector) vector).fields, row);
        }
    }

    /** A value this file does not hold: read past. */
    private static final class Skip extends Node {
        private final Schema schema;

        Skip(Schema schema) {
            this.schema = schema;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            in.skip(schema);
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
        void write(DatumCursor in, ColumnVector vector, int row) {
            constant.reset(encoded, 0, encoded.length);
            value.write(constant, vector, row);
        }
    }

    /** A column the datum lacks and that has no default: null (the table made it nullable when it was added). */
    private static final class NullNode extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            setNull(vector, row);
        }
    }

    /** A union of one type: its branch index, then the value. */
    private static final class BranchNode extends Node {
        private final Node value;

        BranchNode(Node value) {
            this.value = value;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            int branch = in.readInt();
            if (branch != 0) {
                throw new IllegalArgumentException("Union branch " + branch + " of a union of one");
            }
            value.write(in, vector, row);
        }
    }

    /** A union of null and one type. */
    private static final class OptionalNode extends Node {
        private final int nullBranch;
        private final Node value;

        OptionalNode(int nullBranch, Node value) {
            this.nullBranch = nullBranch;
            this.value = value;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            int branch = in.readInt();
            if (branch == nullBranch) {
                setNull(vector, row);
            } else if (branch == 1 - nullBranch) {
                value.write(in, vector, row);
            } else {
                throw new IllegalArgumentException("Union branch " + branch + " of a union of two");
            }
        }
    }

    /** An array: its elements appended to the list's child vector, the row pointing at them. */
    private static final class ListNode extends Node {
        private final Node element;

        ListNode(Node element) {
            this.element = element;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ListColumnVector list = (ListColumnVector) vector;
            int offset = list.childCount;
            int next = offset;
            for (int count = in.blockCount(); count > 0; count = in.blockCount()) {
                list.child.ensureSize(next + count, true);
                for (int i = 0; i < count; i++) {
                    element.write(in, list.child, next++);
                }
            }
            list.childCount = next;
            list.offsets[row] = offset;
            list.lengths[row] = (long) next - offset;
        }
    }

    private static final class MapNode extends Node {
        private final Node value;

        MapNode(Node value) {
            this.value = value;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            MapColumnVector map = (MapColumnVector) vector;
            BytesColumnVector keys = (BytesColumnVector) map.keys;
            int offset = map.childCount;
            int next = offset;
            for (int count = in.blockCount(); count > 0; count = in.blockCount()) {
                keys.ensureSize(next + count, true);
                map.values.ensureSize(next + count, true);
                for (int i = 0; i < count; i++) {
                    int length = in.readLength();
                    keys.setRef(next, in.bytes(), in.position(), length);
                    in.skip(length);
                    value.write(in, map.values, next++);
                }
            }
            map.childCount = next;
            map.offsets[row] = offset;
            map.lengths[row] = (long) next - offset;
        }
    }

    private static final class IntLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((LongColumnVector) vector).vector[row] = in.readInt();
        }
    }

    /** Longs, and ints in a bigint column. */
    private static final class LongLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((LongColumnVector) vector).vector[row] = in.readLong();
        }
    }

    private static final class BooleanLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((LongColumnVector) vector).vector[row] = in.readBoolean() ? 1 : 0;
        }
    }

    /** Floats, also in a double column: ORC holds both as doubles in memory. */
    private static final class FloatLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((DoubleColumnVector) vector).vector[row] = SignedZeros.unsigned(in.readFloat());
        }
    }

    private static final class DoubleLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((DoubleColumnVector) vector).vector[row] = SignedZeros.unsigned(in.readDouble());
        }
    }

    /** An int or long in a float or double column: rounded as Avro's resolution rounds it. */
    private static final class IntegralToFloatLeaf extends Node {
        private final boolean toFloat;

        IntegralToFloatLeaf(boolean toFloat) {
            this.toFloat = toFloat;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            long value = in.readLong();
            ((DoubleColumnVector) vector).vector[row] = toFloat ? (float) value : (double) value;
        }
    }

    /** Strings and bytes: a reference to the datum's bytes. */
    private static final class BytesLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            int length = in.readLength();
            ((BytesColumnVector) vector).setRef(row, in.bytes(), in.position(), length);
            in.skip(length);
        }
    }

    private static final class FixedLeaf extends Node {
        private final int size;

        FixedLeaf(int size) {
            this.size = size;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            ((BytesColumnVector) vector).setRef(row, in.bytes(), in.position(), size);
            in.skip(size);
        }
    }

    private static final class EnumLeaf extends Node {
        private final byte[][] symbols;

        EnumLeaf(List<String> symbols) {
            this.symbols = symbols.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            int index = in.readInt();
            if (index < 0 || index >= symbols.length) {
                throw new IllegalArgumentException("Enum symbol " + index + " of " + symbols.length);
            }
            ((BytesColumnVector) vector).setRef(row, symbols[index], 0, symbols[index].length);
        }
    }

    /** Avro's big-endian two's complement unscaled value, checked to fit the column's precision. */
    private static final class DecimalLeaf extends Node {
        /** The Avro fixed size, or -1 for bytes. */
        private final int avroSize;
        private final int precision;
        private final int scale;

        DecimalLeaf(int avroSize, int precision, int scale) {
            this.avroSize = avroSize;
            this.precision = precision;
            this.scale = scale;
        }

        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            int size = avroSize >= 0 ? avroSize : in.readLength();
            int start = in.position();
            in.skip(size);
            HiveDecimalWritable value = ((DecimalColumnVector) vector).vector[row];
            if (size == 0) {
                value.setFromLong(0);
            } else {
                value.setFromBigIntegerBytesAndScale(in.bytes(), start, size, scale);
            }
            if (!value.isSet() || !value.mutateEnforcePrecisionScale(precision, scale)) {
                throw new IllegalArgumentException("A decimal does not fit its column's precision " + precision
                        + " and scale " + scale);
            }
        }
    }

    /** Milliseconds since the epoch, UTC: the file's writer time zone is UTC. */
    private static final class TimestampLeaf extends Node {
        @Override
        void write(DatumCursor in, ColumnVector vector, int row) {
            long millis = in.readLong();
            TimestampColumnVector timestamps = (TimestampColumnVector) vector;
            timestamps.time[row] = millis;
            timestamps.nanos[row] = (int) Math.floorMod(millis, 1000L) * NANOS_PER_MILLI;
        }
    }
}
