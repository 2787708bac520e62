package io.hivesink.avro.datum;

import org.apache.kafka.connect.errors.DataException;

/**
 * One record type's (or one array item's, map value's or union branch's) walk through a datum: pairs of (op,
 * argument) that a loop runs with the position in a local variable. Programs refer to each other by index, so a
 * recursive schema is a finite set of them.
 */
final class ScanProgram {

    // Ops of a program: pairs (op, argument).
    static final int NOTHING = 0;
    static final int BOOLEAN = 1;
    static final int FIXED = 2; // argument: size (float 4, double 8, fixed N)
    static final int RECORD = 3; // argument: index in programs
    static final int ARRAY = 4; // argument: index in programs of the one-op item program
    static final int MAP = 5; // argument: as ARRAY
    // Ops that start with a variable-length number.
    static final int NUMBER = 6;
    static final int LENGTH = 7; // string, bytes
    static final int ENUM = 8; // argument: symbol count
    static final int UNION = 9; // argument: index in unions
    static final int DECIMAL = 10; // argument: index in decimals (bytes or fixed, with a precision)
    static final int INSTANT = 11; // argument: index in instants (a date or timestamp Hive must read)

    /** Thrown without a stack trace when the bytes run out: the common failure, turned into one message. */
    // one stackless instance, thrown in the loop and caught by DatumScanner: it never leaves the scanner
    @SuppressWarnings("StaticAssignmentOfThrowable")
    static final class TruncatedException extends RuntimeException {
        static final TruncatedException INSTANCE = new TruncatedException();

        private TruncatedException() {
            super(null, null, false, false);
        }
    }

    int[] ops;
    ScanProgram[] programs;
    ScanProgram[][] unions;
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
                    ScanProgram[] branches = unions[ops[i + 1]];
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
    private static int blocks(ScanProgram item, boolean keyed, byte[] b, int p, int end) {
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
