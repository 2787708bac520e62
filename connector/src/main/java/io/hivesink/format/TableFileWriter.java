package io.hivesink.format;

import java.io.IOException;
import java.io.OutputStream;

import org.apache.avro.Schema;


/**
 * The file format seam: writes one data file of a table from a batch's records of that table, their Avro schema and
 * encoded datums in Kafka order ({@link DatumSource}). The stream is flushed but not closed: the caller makes it
 * durable and closes it. The Avro container writer ({@code avro.container.ParallelContainerWriter}) and the Parquet
 * writer ({@code parquet.ParallelParquetWriter}) sit here, and the commit names each file with its writer's
 * {@link #extension()}.
 */
public interface TableFileWriter {

    /** The data files' name extension, with its dot, such as {@code .avro}. */
    String extension();

    /**
     * Writes the datums to {@code out} as one file; returns the bytes written.
     *
     * @param schema  the schema the datums are encoded with
     * @param columns the table's schema, which reads {@code schema} (its columns, without the partition columns). A
     *                format that keeps the writer's schema (Avro) writes every field of {@code schema}, and readers
     *                resolve it; a columnar format writes the table's columns, a column the datums lack as its
     *                default (or null).
     */
    long write(Schema schema, Schema columns, DatumSource datums, OutputStream out) throws IOException;

    /**
     * About the heap the writer takes, beyond the datums themselves, while it writes a file of them: what the memory
     * budget counts for a batch while its files are written, besides the batch. A columnar writer holds a row group's
     * or stripes' encoded columns until they are written out; an Avro writer only the blocks it compresses at once.
     * An estimate from the sizes the writer is set to, not a measure.
     */
    long writingBytes(DatumSource datums);
}
