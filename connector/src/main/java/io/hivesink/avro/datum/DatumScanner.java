package io.hivesink.avro.datum;


import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * Walks an Avro binary datum along its writer schema without building any value, to prove that the bytes are one
 * whole datum of that schema before they are appended to a container file unchanged: a truncated or padded datum, an
 * out-of-range union branch or enum symbol, a negative length would otherwise corrupt the block that holds it (and so
 * every record beside it). A decimal with more digits than its precision is refused too (Hive would read it as
 * NULL), and so are a date or timestamp outside the years 0001 to 9999 (every query of the column would fail).
 * Compiled once per writer schema (recursive schemas included) into flat programs ({@link ScanCompiler}), one per
 * record type, that a loop runs with the position in a local variable ({@link ScanProgram}); thread-safe.
 */
public final class DatumScanner {

    private final ScanProgram root;

    private DatumScanner(ScanProgram root) {
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
        return new DatumScanner(ScanCompiler.compile(writer));
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
        } catch (ScanProgram.TruncatedException e) {
            throw new DataException("The Avro datum (" + length + " bytes) ends before its writer schema says it "
                    + "should: it is truncated, or was written with another schema than the one its id names.");
        }
    }
}
