package io.hivesink.confluent;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * Walks an Avro binary datum along its writer schema without building any value, to prove that the bytes are one
 * whole datum of that schema before they are appended to a container file unchanged: a truncated or padded datum, an
 * out-of-range union branch or enum symbol, a negative length would otherwise corrupt the block that holds it (and so
 * every record beside it). Compiled once per writer schema (recursive schemas included); thread-safe.
 */
public final class DatumScanner {

    private final RecordNode root;

    private DatumScanner(RecordNode root) {
        this.root = root;
    }

    /**
     * @throws DataException if the writer schema is not a record
     */
    public static DatumScanner of(Schema writer) {
        if (writer.getType() != Schema.Type.RECORD) {
            throw new DataException("The writer schema is a " + writer.getType() + ", not a record; each record "
                    + "must be a structure whose fields become table columns: " + writer);
        }
        return new DatumScanner((RecordNode) compile(writer, new IdentityHashMap<>()));
    }

    /** Fields of the top-level record, in writer order. */
    public int fieldCount() {
        return root.fields.length;
    }

    /**
     * Checks that {@code length} bytes at {@code offset} are exactly one datum of the writer schema.
     *
     * @param fieldStarts null, or an array of {@link #fieldCount()} entries that receives where each top-level field
     *     starts
     * @throws DataException saying where the datum breaks
     */
    public void scan(byte[] value, int offset, int length, int[] fieldStarts) {
        Cursor cursor = new Cursor(value, offset, offset + length);
        try {
            root.skip(cursor, fieldStarts);
        } catch (ArrayIndexOutOfBoundsException | TruncatedException e) {
            throw new DataException("The Avro datum (" + length + " bytes) ends before its writer schema says it "
                    + "should: it is truncated, or was written with another schema than the one its id names.");
        }
        if (cursor.position != cursor.end) {
            throw new DataException("The Avro datum has " + (cursor.end - cursor.position) + " bytes left over after "
                    + "the last field of its writer schema (" + length + " bytes in all): it was written with another "
                    + "schema than the one its id names, or bytes were appended to it.");
        }
    }

    private static Node compile(Schema schema, Map<Schema, Node> compiled) {
        Node known = compiled.get(schema);
        if (known != null) {
            return known;
        }
        switch (schema.getType()) {
            case RECORD: {
                RecordNode node = new RecordNode(schema.getFullName());
                compiled.put(schema, node); // before the fields, so that a recursive reference finds it
                List<Schema.Field> fields = schema.getFields();
                Node[] nodes = new Node[fields.size()];
                for (int i = 0; i < nodes.length; i++) {
                    nodes[i] = compile(fields.get(i).schema(), compiled);
                }
                node.fields = nodes;
                return node;
            }
            case NULL:
                return Fixed.NOTHING;
            case BOOLEAN:
                return BooleanNode.INSTANCE;
            case INT:
            case LONG:
                return VarLong.INSTANCE;
            case FLOAT:
                return Fixed.FOUR;
            case DOUBLE:
                return Fixed.EIGHT;
            case STRING:
            case BYTES:
                return LengthPrefixed.INSTANCE;
            case FIXED:
                return new Fixed(schema.getFixedSize());
            case ENUM:
                return new Indexed(schema.getFullName(), schema.getEnumSymbols().size(), null);
            case UNION: {
                List<Schema> types = schema.getTypes();
                Node[] branches = new Node[types.size()];
                for (int i = 0; i < branches.length; i++) {
                    branches[i] = compile(types.get(i), compiled);
                }
                return new Indexed("union " + schema, branches.length, branches);
            }
            case ARRAY:
                return new Blocks(compile(schema.getElementType(), compiled), false);
            case MAP:
                return new Blocks(compile(schema.getValueType(), compiled), true);
            default:
                throw new DataException("Unsupported Avro type " + schema.getType() + " in " + schema);
        }
    }

    private static final class TruncatedException extends RuntimeException {
        TruncatedException() {
            super(null, null, false, false);
        }
    }

    /** The bytes being walked and where the walk stands. */
    private static final class Cursor {
        final byte[] bytes;
        final int end;
        int position;

        Cursor(byte[] bytes, int position, int end) {
            this.bytes = bytes;
            this.position = position;
            this.end = end;
        }

        long varLong() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (position >= end) {
                    throw new TruncatedException();
                }
                int b = bytes[position++];
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return (value >>> 1) ^ -(value & 1);
                }
            }
            throw new DataException("The Avro datum holds a variable-length number longer than 10 bytes at byte "
                    + position + ": it is not Avro binary.");
        }

        void advance(long count) {
            if (count < 0) {
                throw new DataException("The Avro datum holds a negative length (" + count + ") at byte " + position
                        + ": it is not Avro binary of its writer schema.");
            }
            if (count > end - position) {
                throw new TruncatedException();
            }
            position += (int) count;
        }
    }

    private abstract static class Node {
        abstract void skip(Cursor cursor);
    }

    private static final class RecordNode extends Node {
        final String name;
        Node[] fields;

        RecordNode(String name) {
            this.name = name;
        }

        @Override
        void skip(Cursor cursor) {
            for (Node field : fields) {
                field.skip(cursor);
            }
        }

        void skip(Cursor cursor, int[] fieldStarts) {
            if (fieldStarts == null) {
                skip(cursor);
                return;
            }
            for (int i = 0; i < fields.length; i++) {
                fieldStarts[i] = cursor.position;
                fields[i].skip(cursor);
            }
        }
    }

    private static final class Fixed extends Node {
        static final Fixed NOTHING = new Fixed(0);
        static final Fixed FOUR = new Fixed(4);
        static final Fixed EIGHT = new Fixed(8);
        final int size;

        Fixed(int size) {
            this.size = size;
        }

        @Override
        void skip(Cursor cursor) {
            cursor.advance(size);
        }
    }

    private static final class VarLong extends Node {
        static final VarLong INSTANCE = new VarLong();

        @Override
        void skip(Cursor cursor) {
            cursor.varLong();
        }
    }

    private static final class BooleanNode extends Node {
        static final BooleanNode INSTANCE = new BooleanNode();

        @Override
        void skip(Cursor cursor) {
            if (cursor.position >= cursor.end) {
                throw new TruncatedException();
            }
            int b = cursor.bytes[cursor.position++];
            if (b != 0 && b != 1) {
                throw new DataException("The Avro datum holds " + b + " as a boolean at byte " + (cursor.position - 1)
                        + ": it is not Avro binary of its writer schema.");
            }
        }
    }

    private static final class LengthPrefixed extends Node {
        static final LengthPrefixed INSTANCE = new LengthPrefixed();

        @Override
        void skip(Cursor cursor) {
            cursor.advance(cursor.varLong());
        }
    }

    /** An enum symbol (no branches) or a union branch: an index below {@code count}. */
    private static final class Indexed extends Node {
        final String what;
        final int count;
        final Node[] branches;

        Indexed(String what, int count, Node[] branches) {
            this.what = what;
            this.count = count;
            this.branches = branches;
        }

        @Override
        void skip(Cursor cursor) {
            long index = cursor.varLong();
            if (index < 0 || index >= count) {
                throw new DataException("The Avro datum holds index " + index + " for " + what + ", which has "
                        + count + (branches == null ? " symbols" : " branches") + ": it was written with another "
                        + "schema than the one its id names.");
            }
            if (branches != null) {
                branches[(int) index].skip(cursor);
            }
        }
    }

    /** Arrays and maps: blocks of items, each block a count (negative: followed by its size in bytes), 0 at the end. */
    private static final class Blocks extends Node {
        final Node item;
        final boolean keyed;

        Blocks(Node item, boolean keyed) {
            this.item = item;
            this.keyed = keyed;
        }

        @Override
        void skip(Cursor cursor) {
            for (long count = cursor.varLong(); count != 0; count = cursor.varLong()) {
                if (count < 0) {
                    long size = cursor.varLong();
                    if (size < 0) {
                        throw new DataException("The Avro datum holds a negative block size (" + size + ") at byte "
                                + cursor.position + ": it is not Avro binary of its writer schema.");
                    }
                    int blockEnd = cursor.position;
                    cursor.advance(size);
                    int after = cursor.position;
                    // Walk the block too: its bytes go into the file as they are, so they must be valid items.
                    Cursor block = new Cursor(cursor.bytes, blockEnd, after);
                    skipItems(block, -count);
                    if (block.position != after) {
                        throw new DataException("An Avro block in the datum says it has " + size + " bytes but its "
                                + -count + " items take " + (block.position - blockEnd) + ".");
                    }
                } else {
                    skipItems(cursor, count);
                }
            }
        }

        private void skipItems(Cursor cursor, long count) {
            if (item == Fixed.NOTHING) {
                return; // nulls take no bytes
            }
            if (count > cursor.end - cursor.position) {
                throw new TruncatedException(); // every other item takes a byte at least
            }
            for (long i = 0; i < count; i++) {
                if (keyed) {
                    LengthPrefixed.INSTANCE.skip(cursor);
                }
                item.skip(cursor);
            }
        }
    }
}
