package io.hivesink.format;

import java.io.IOException;
import java.io.OutputStream;

import org.apache.avro.Schema;


/**
 * The file format seam: writes one data file of a table from a batch's records of that table, their Avro schema and
 * encoded datums in Kafka order ({@link DatumSource}). The stream is flushed but not closed: the caller makes it
 * durable and closes it. The Avro container writer ({@code avro.container.ParallelContainerWriter}) sits here; a
 * Parquet or ORC writer sits beside it, and the commit names each file with its writer's {@link #extension()}.
 */
public interface TableFileWriter {

    /** The data files' name extension, with its dot, such as {@code .avro}. */
    String extension();

    /** Writes the datums to {@code out} as one file of that schema; returns the bytes written. */
    long write(Schema schema, DatumSource datums, OutputStream out) throws IOException;
}
