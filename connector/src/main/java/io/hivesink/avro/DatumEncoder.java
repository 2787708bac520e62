package io.hivesink.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Struct;

/**
 * Encodes Connect structs of one schema into Avro binary datums. Not thread-safe: one per writing thread.
 */
public final class DatumEncoder {

    private final Schema schema;
    private final GenericDatumWriter<GenericData.Record> writer;
    private final Scratch scratch = new Scratch();
    private BinaryEncoder encoder;

    public DatumEncoder(Schema schema) {
        this.schema = schema;
        this.writer = new GenericDatumWriter<>(schema);
    }

    public Schema schema() {
        return schema;
    }

    /** Encodes {@code value} and appends it to {@code target}. */
    public void encodeInto(Struct value, EncodedDatums target) {
        GenericData.Record record = ConnectValueConverter.convertRecord(value, schema);
        scratch.reset();
        encoder = EncoderFactory.get().binaryEncoder(scratch, encoder);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        target.add(scratch.buffer(), 0, scratch.size());
    }

    /** A ByteArrayOutputStream whose buffer can be read without a copy. */
    private static final class Scratch extends ByteArrayOutputStream {
        Scratch() {
            super(4096);
        }

        byte[] buffer() {
            return buf;
        }
    }
}
