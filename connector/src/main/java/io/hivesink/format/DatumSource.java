package io.hivesink.format;

/**
 * A sequence of Avro-encoded datums, in file order: datum {@code i} is {@code length(i)} bytes of {@code page(i)}
 * from {@code start(i)}. What a container file writer reads; implementations hold bytes, not records. One kind holds
 * its datums compressed already ({@link io.hivesink.avro.container.FileBlocks}): only its count and sizes can be read,
 * and only the writer that compressed it can write it.
 */
public interface DatumSource {

    int count();

    byte[] page(int datum);

    int start(int datum);

    int length(int datum);

    /** Encoded bytes of all datums. */
    long bytes();

    /**
     * The end of the run of datums from {@code from} that holds at most {@code maxBytes} of them, and at least one:
     * how a writer cuts a file into row groups or stripes.
     */
    default int runEnd(int from, long maxBytes) {
        long bytes = 0;
        int to = from;
        while (to < count() && (to == from || bytes + length(to) <= maxBytes)) {
            bytes += length(to);
            to++;
        }
        return to;
    }

    /** The heap the datums take now: their encoded bytes, unless they are compressed already. */
    default long heldBytes() {
        return bytes();
    }

    /** The datums will not be written: work still queued for them (compressing early) need not be done. */
    default void discard() {
    }
}
