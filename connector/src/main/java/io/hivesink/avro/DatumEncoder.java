package io.hivesink.avro;

import org.apache.avro.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Encodes Connect structs of one schema into Avro binary datums appended to {@link EncodedDatums}. Not thread-safe:
 * one per encoding thread (the compiled plan itself can be shared).
 */
public final class DatumEncoder {

    private final StructEncoder encoder;
    private final ByteSink scratch = new ByteSink(4096);

    public DatumEncoder(StructEncoder encoder) {
        this.encoder = encoder;
    }

    public Schema schema() {
        return encoder.avroSchema();
    }

    /** Encodes {@code value} and appends it to {@code target}; nothing is appended if encoding fails. */
    public void encodeInto(Struct value, EncodedDatums target) {
        scratch.reset();
        encoder.encode(value, scratch);
        target.add(scratch.array(), 0, scratch.size());
    }
}
