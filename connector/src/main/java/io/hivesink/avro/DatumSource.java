package io.hivesink.avro;

/**
 * A sequence of Avro-encoded datums, in file order: datum {@code i} is {@code length(i)} bytes of {@code page(i)}
 * from {@code start(i)}. What a container file writer reads; implementations hold bytes, not records.
 */
public interface DatumSource {

    int count();

    byte[] page(int datum);

    int start(int datum);

    int length(int datum);

    /** Encoded bytes of all datums. */
    long bytes();
}
