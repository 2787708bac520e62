package io.hivesink.avro;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * Walks an Avro binary datum along its writer schema without building any value, to prove that the bytes are one
 * whole datum of that schema before they are appended to a container file unchanged: a truncated or padded datum, an
 * out-of-range union branch or enum symbol, a negative length would otherwise corrupt the block that holds it (and so
 * every record beside it). A decimal with more digits than its precision is refused too (Hive would read it as
 * NULL), and so are a date or timestamp outside the years 0001 to 9999 (every query of the column would fail).
 * Compiled once per writer schema (recursive schemas included) into flat programs, one per record type, that a loop
 * runs with the position in a local variable; thread-safe.
 */
public final class DatumScanner {

    // Ops of a program: pairs (op, argument).
    private static final int NOTHING = 0;
    private static final int BOOLEAN = 1;
    private static final int FIXED = 2; // argument: size (float 4, double 8, fixed N)
    private static final int RECORD = 3; // argument: index in programs
    private static final int ARRAY = 4; // argument: index in programs of the one-op item program
    private static final int MAP = 5; // argument: as ARRAY
    // Ops that start with a variable-length number.
    private static final int NUMBER = 6;
    private static final int LENGTH = 7; // string, bytes
    private static final int ENUM = 8; // argument: symbol count
    private static final int UNION = 9; // argument: index in unions
    private static final int DECIMAL = 10; // argument: index in decimals (bytes or fixed, with a precision)
    private static final int INSTANT = 11; // argument: index in instants (a date or timestamp Hive must read)

    private final Program root;

    private DatumScanner(Program root) {
        this.root = root;
    }

    /**
     * The scanner of datums written with {@code writer}, compiled once.
     *
     * @throws DataException if the writer schema is not a record
     */
    public static DatumScanner of(Schema writer) {
        if (writer.getType() != Schema.Type.RECORD) {
            throw new DataException("The writer schema is a " + writer.getType() + ", not a record; each record "
                    + "must be a structure whose fields become table columns: " + writer);
        }
        Compiler compiler = new Compiler();
        int root = compiler.record(writer);
        Program[] programs = compiler.programs.toArray(new Program[0]);
        Program[][] unions = compiler.unions.toArray(new Program[0][]);
        DecimalType[] decimals = compiler.decimals.toArray(new DecimalType[0]);
        InstantType[] instants = compiler.instants.toArray(new InstantType[0]);
        for (Program program : programs) {
            program.programs = programs;
            program.unions = unions;
            program.decimals = decimals;
            program.instants = instants;
        }
        return new DatumScanner(programs[root]);
    }

    /** Fields of the top-level record, in writer order. */
    public int fieldCount() {
        return root.ops.length / 2;
    }

    /**
     * Checks that {@code length} bytes at {@code offset} are exactly one datum of the writer schema.
     *
     * @param fieldStarts null, or an array of {@link #fieldCount()} entries that receives where each top-level field
     *     starts
     * @throws DataException saying where the datum breaks
     */
    public void scan(byte[] value, int offset, int length, int[] fieldStarts) {
        int end = offset + length;
        int position = walk(value, offset, length, fieldStarts, fieldCount());
        if (position != end) {
            throw new DataException("The Avro datum has " + (end - position) + " bytes left over after the last "
                    + "field of its writer schema (" + length + " bytes in all): it was written with another "
                    + "schema than the one its id names, or bytes were appended to it.");
        }
    }

    /**
     * Walks only the first {@code fields} top-level fields, noting where each starts: enough to read them, but no
     * proof that the rest of the datum is sound.
     *
     * @throws DataException if the datum breaks before the end of those fields
     */
    public void scanLeading(byte[] value, int offset, int length, int[] fieldStarts, int fields) {
        walk(value, offset, length, fieldStarts, fields);
    }

    private int walk(byte[] value, int offset, int length, int[] fieldStarts, int fields) {
        try {
            return root.run(value, offset, offset + length, fieldStarts, 2 * fields);
        } catch (TruncatedException e) {
            throw new DataException("The Avro datum (" + length + " bytes) ends before its writer schema says it "
                    + "should: it is truncated, or was written with another schema than the one its id names.");
        }
    }

    /** Builds the programs: one per record type, one per array item, map value and union branch type. */
    private static final class Compiler {
        final List<Program> programs = new ArrayList<>();
        final List<Program[]> unions = new ArrayList<>();
        final List<DecimalType> decimals = new ArrayList<>();
        final List<InstantType> instants = new ArrayList<>();
        final IdentityHashMap<Schema, Integer> records = new IdentityHashMap<>();
        /** The field being compiled, for the messages of decimals. */
        String field = "";

        int record(Schema schema) {
            Integer known = records.get(schema);
            if (known != null) {
                return known;
            }
            Program program = new Program();
            int index = add(program);
            records.put(schema, index); // before the fields, so that a recursive reference finds it
            List<Schema.Field> fields = schema.getFields();
            int[] ops = new int[2 * fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                String outer = field;
                field = outer.isEmpty() ? fields.get(i).name() : outer + "." + fields.get(i).name();
                op(fields.get(i).schema(), ops, 2 * i);
                field = outer;
            }
            program.ops = ops;
            return index;
        }

        /** A program of the one value {@code schema}. */
        int single(Schema schema) {
            Program program = new Program();
            int[] ops = new int[2];
            op(schema, ops, 0);
            program.ops = ops;
            return add(program);
        }

        int add(Program program) {
            programs.add(program);
            return programs.size() - 1;
        }

        void op(Schema schema, int[] ops, int at) {
            LogicalType logical = schema.getLogicalType();
            if (logical instanceof LogicalTypes.Decimal decimal
                    && (schema.getType() == Schema.Type.BYTES || schema.getType() == Schema.Type.FIXED)) {
                decimals.add(new DecimalType(field, decimal.getPrecision(), decimal.getScale(),
                        schema.getType() == Schema.Type.FIXED ? schema.getFixedSize() : -1));
                ops[at] = DECIMAL;
                ops[at + 1] = decimals.size() - 1;
                return;
            }
            InstantType instant = InstantType.of(field, logical);
            if (instant != null) {
                instants.add(instant);
                ops[at] = INSTANT;
                ops[at + 1] = instants.size() - 1;
                return;
            }
            int argument = 0;
            int op = switch (schema.getType()) {
                case NULL -> NOTHING;
                case BOOLEAN -> BOOLEAN;
                case INT, LONG -> NUMBER;
                case FLOAT -> {
                    argument = 4;
                    yield FIXED;
                }
                case DOUBLE -> {
                    argument = 8;
                    yield FIXED;
                }
                case FIXED -> {
                    argument = schema.getFixedSize();
                    yield FIXED;
                }
                case STRING, BYTES -> LENGTH;
                case ENUM -> {
                    argument = schema.getEnumSymbols().size();
                    yield ENUM;
                }
                case RECORD -> {
                    argument = record(schema);
                    yield RECORD;
                }
                case ARRAY -> {
                    argument = single(schema.getElementType());
                    yield ARRAY;
                }
                case MAP -> {
                    argument = single(schema.getValueType());
                    yield MAP;
                }
                case UNION -> {
                    List<Schema> types = schema.getTypes();
                    Program[] branches = new Program[types.size()];
                    unions.add(branches);
                    argument = unions.size() - 1;
                    for (int i = 0; i < branches.length; i++) {
                        branches[i] = programs.get(single(types.get(i)));
                    }
                    yield UNION;
                }
            };
            ops[at] = op;
            ops[at + 1] = argument;
        }
    }

    /**
     * A decimal's Avro type. Its unscaled value, two's-complement big-endian, fits {@code precision} digits for sure
     * when it has at most {@code safeBytes} bytes; a longer one is compared with 10^precision.
     */
    private record DecimalType(String field, int precision, int scale, int fixedSize, int safeBytes,
            BigInteger limit) {

        DecimalType(String field, int precision, int scale, int fixedSize) {
            // n bytes hold magnitudes below 2^(8n-1): safe while 8n-1 <= precision * log2(10)
            this(field, precision, scale, fixedSize,
                    (int) Math.floor((precision * (Math.log(10) / Math.log(2)) + 1) / 8),
                    BigInteger.TEN.pow(precision));
        }

        /** Checks the {@code length} bytes of an unscaled value at {@code p}. */
        void check(byte[] b, int p, int length) {
            if (length <= safeBytes) {
                return;
            }
            BigInteger unscaled = new BigInteger(b, p, length);
            if (unscaled.abs().compareTo(limit) >= 0) {
                throw new DataException("Decimal " + field + " = "
                        + new java.math.BigDecimal(unscaled, scale).toPlainString() + " has more digits than its "
                        + "type decimal(" + precision + "," + scale + ") allows, so Hive would read it as NULL. "
                        + "Round or cap it upstream, or give it a larger precision for a new table: the connector does "
                        + "not change a decimal column.");
            }
        }
    }

    /** A date or timestamp logical type, with the range of its values that Hive reads (years 0001 to 9999). */
    private record InstantType(String field, String kind, long min, long max, long perMilli) {

        static InstantType of(String field, LogicalType logical) {
            if (logical == null) {
                return null;
            }
            long min = LogicalValues.HIVE_MIN_MILLIS;
            long max = LogicalValues.HIVE_MAX_MILLIS;
            return switch (logical.getName()) {
                case "date" -> new InstantType(field, "date", Math.floorDiv(min, 86_400_000L),
                        Math.floorDiv(max, 86_400_000L), 0);
                case "timestamp-millis", "local-timestamp-millis" -> new InstantType(field, logical.getName(), min,
                        max, 1);
                case "timestamp-micros", "local-timestamp-micros" -> new InstantType(field, logical.getName(),
                        min * 1_000, max * 1_000 + 999, 1_000);
                default -> null;
            };
        }

        void check(long value) {
            if (value < min || value > max) {
                String shown = perMilli == 0 ? java.time.LocalDate.ofEpochDay(value).toString()
                        : java.time.Instant.ofEpochMilli(Math.floorDiv(value, perMilli)).toString();
                throw LogicalValues.outOfHiveRange(kind + " " + field + " = " + shown);
            }
        }
    }

    /** Thrown without a stack trace when the bytes run out: the common failure, turned into one message. */
    // one stackless instance, thrown and caught inside the scanner's loop: it never leaves this class
    @SuppressWarnings("StaticAssignmentOfThrowable")
    private static final class TruncatedException extends RuntimeException {
        static final TruncatedException INSTANCE = new TruncatedException();

        private TruncatedException() {
            super(null, null, false, false);
        }
    }

    private static final class Program {
        int[] ops;
        Program[] programs;
        Program[][] unions;
        DecimalType[] decimals;
        InstantType[] instants;

        /**
         * Walks one value of this program from {@code p}; returns the position after it. Each field's position
         * depends on the one before, so the common cases (a string shorter than 64 bytes, a number) take the
         * shortest chain of instructions from one position to the next.
         */
        int run(byte[] b, int p, int end, int[] fieldStarts) {
            return run(b, p, end, fieldStarts, ops.length);
        }

        /** As {@link #run(byte[], int, int, int[])}, for the ops before {@code opsEnd} only. */
        int run(byte[] b, int p, int end, int[] fieldStarts, int opsEnd) {
            int[] ops = this.ops;
            for (int i = 0; i < opsEnd; i += 2) {
                if (fieldStarts != null) {
                    fieldStarts[i >> 1] = p;
                }
                int op = ops[i];
                if (op == LENGTH) {
                    if (p >= end) {
                        throw TruncatedException.INSTANCE;
                    }
                    int first = b[p];
                    if (first >= 0) { // a length below 64: one byte, zig-zag even
                        if ((first & 1) != 0) {
                            throw negativeLength(p);
                        }
                        p += 1 + (first >> 1);
                        if (p > end) {
                            throw TruncatedException.INSTANCE;
                        }
                        continue;
                    }
                }
                switch (op) {
                    case FIXED -> {
                        p += ops[i + 1];
                        if (p > end || p < 0) {
                            throw TruncatedException.INSTANCE;
                        }
                    }
                    case NUMBER -> p = skipNumber(b, p, end);
                    case LENGTH -> {
                        int[] at = {p};
                        long length = number(b, at, end);
                        p = at[0];
                        if (length < 0) {
                            throw negativeLength(p);
                        }
                        if (length > end - p) {
                            throw TruncatedException.INSTANCE;
                        }
                        p += (int) length;
                    }
                    case BOOLEAN -> {
                        if (p >= end) {
                            throw TruncatedException.INSTANCE;
                        }
                        int x = b[p++];
                        if (x != 0 && x != 1) {
                            throw new DataException("The Avro datum holds " + x + " as a boolean at byte " + (p - 1)
                                    + ": it is not Avro binary of its writer schema.");
                        }
                    }
                    case ENUM -> {
                        int[] at = {p};
                        long index = number(b, at, end);
                        p = at[0];
                        if (index < 0 || index >= ops[i + 1]) {
                            throw badIndex(index, "enum", ops[i + 1], "symbols");
                        }
                    }
                    case UNION -> {
                        int[] at = {p};
                        long index = number(b, at, end);
                        p = at[0];
                        Program[] branches = unions[ops[i + 1]];
                        if (index < 0 || index >= branches.length) {
                            throw badIndex(index, "union", branches.length, "branches");
                        }
                        p = branches[(int) index].run(b, p, end, null);
                    }
                    case DECIMAL -> p = decimal(decimals[ops[i + 1]], b, p, end);
                    case INSTANT -> {
                        int[] at = {p};
                        instants[ops[i + 1]].check(number(b, at, end));
                        p = at[0];
                    }
                    case RECORD -> p = programs[ops[i + 1]].run(b, p, end, null);
                    case ARRAY, MAP -> p = blocks(programs[ops[i + 1]], op == MAP, b, p, end);
                    default -> {
                        // NOTHING: a null takes no bytes
                    }
                }
            }
            return p;
        }

        /** A decimal's bytes (length-prefixed, or fixed), checked against its precision; the position after them. */
        private static int decimal(DecimalType type, byte[] b, int p, int end) {
            int length = type.fixedSize();
            if (length < 0) {
                int[] at = {p};
                long declared = number(b, at, end);
                p = at[0];
                if (declared < 0) {
                    throw negativeLength(p);
                }
                if (declared > end - p) {
                    throw TruncatedException.INSTANCE;
                }
                length = (int) declared;
            } else if (length > end - p) {
                throw TruncatedException.INSTANCE;
            }
            if (length > 0) {
                type.check(b, p, length);
            }
            return p + length;
        }

        private static DataException negativeLength(int at) {
            return new DataException("The Avro datum holds a negative length at byte " + at + ": it is not Avro "
                    + "binary of its writer schema.");
        }

        /** Moves past a variable-length number without decoding it. */
        private static int skipNumber(byte[] b, int p, int end) {
            int limit = Math.min(end, p + 10);
            while (p < limit) {
                if (b[p++] >= 0) {
                    return p;
                }
            }
            if (limit == end) {
                throw TruncatedException.INSTANCE;
            }
            throw new DataException("The Avro datum holds a variable-length number longer than 10 bytes at byte "
                    + p + ": it is not Avro binary.");
        }

        private static DataException badIndex(long index, String what, int count, String things) {
            return new DataException("The Avro datum holds index " + index + " for an " + what + " of " + count + " "
                    + things + ": it was written with another schema than the one its id names.");
        }

        /** Arrays and maps: blocks of items, each a count (negative: then the block's size in bytes), 0 at the end. */
        private static int blocks(Program item, boolean keyed, byte[] b, int p, int end) {
            int[] one = {p};
            for (long count = number(b, one, end); count != 0; count = number(b, one, end)) {
                p = one[0];
                int blockEnd = -1;
                if (count < 0) {
                    count = -count;
                    long size = number(b, one, end);
                    p = one[0];
                    if (size < 0) {
                        throw new DataException("The Avro datum holds a negative block size (" + size + ") at byte "
                                + p + ": it is not Avro binary of its writer schema.");
                    }
                    if (size > end - p) {
                        throw TruncatedException.INSTANCE;
                    }
                    blockEnd = p + (int) size;
                }
                boolean empty = item.ops[0] == NOTHING;
                if (!empty && count > end - p) {
                    throw TruncatedException.INSTANCE; // every item but a null takes a byte at least
                }
                for (long i = 0; i < count && !empty; i++) {
                    if (keyed) {
                        one[0] = p;
                        long keyLength = number(b, one, end);
                        p = one[0];
                        if (keyLength < 0 || keyLength > end - p) {
                            throw keyLength < 0 ? new DataException("The Avro datum holds a negative map key length "
                                    + "at byte " + p + ".") : TruncatedException.INSTANCE;
                        }
                        p += (int) keyLength;
                    }
                    p = item.run(b, p, end, null);
                }
                if (blockEnd >= 0 && p != blockEnd) {
                    throw new DataException("An Avro block in the datum says it ends at byte " + blockEnd + " but its "
                            + count + " items end at byte " + p + ": it is not Avro binary of its writer schema.");
                }
                one[0] = p;
            }
            return one[0];
        }

        /** A variable-length number at {@code at[0]}, which is moved past it. */
        private static long number(byte[] b, int[] at, int end) {
            int p = at[0];
            long raw = 0;
            int x;
            int shift = 0;
            do {
                if (p >= end) {
                    throw TruncatedException.INSTANCE;
                }
                if (shift > 63) {
                    throw new DataException("The Avro datum holds a variable-length number longer than 10 bytes at "
                            + "byte " + p + ": it is not Avro binary.");
                }
                x = b[p++];
                raw |= (long) (x & 0x7F) << shift;
                shift += 7;
            } while (x < 0);
            at[0] = p;
            return (raw >>> 1) ^ -(raw & 1);
        }
    }
}
