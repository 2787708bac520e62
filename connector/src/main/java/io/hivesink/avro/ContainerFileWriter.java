package io.hivesink.avro;

import java.io.IOException;
import java.io.OutputStream;

import org.apache.avro.Schema;

/**
 * Writes one Avro object container file holding {@code datums}, in their order, to {@code out}. The stream is
 * flushed but not closed: the caller makes it durable and closes it. Datums come as a {@link DatumSource}
 * ({@link EncodedDatums} is the simple one to fill in tests).
 */
public interface ContainerFileWriter {

    /** Writes the datums to {@code out} as one container file of that schema; returns the bytes written. */
    long write(Schema schema, DatumSource datums, OutputStream out) throws IOException;
}
