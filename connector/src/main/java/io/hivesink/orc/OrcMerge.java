package io.hivesink.orc;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.TypeDescription;
import org.apache.orc.impl.WriterImpl;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;

/**
 * Merges ORC files of one schema into one file of full stripes: what a compaction does with a partition's small ORC
 * files. ORC's own merge appends the files' stripes as they are, which keeps every stripe as small as the batch that
 * wrote it, and readers plan, skip and read by stripe. So the files' rows are read in batches and written again with
 * the connector's ORC settings ({@link ParallelOrcWriter#options}), and ORC's writer cuts a stripe each time the
 * streams it holds (encoded and compressed) reach about {@code stripeBytes}: larger stripes, in rows, than the
 * landing writer's, which counts the records' Avro bytes. Timestamps and dates are read and written as UTC and
 * proleptic Gregorian, as the connector writes them, so no value is converted on the way; statistics are kept
 * NaN-safe ({@link NanSafeStatistics}). One thread: compaction runs beside landing.
 */
public final class OrcMerge {

    private final CompressionKind codec;
    private final long stripeBytes;
    private final Configuration conf = ParallelOrcWriter.conf();

    /**
     * @param codec       one of {@link io.hivesink.config.OrcCodecs#NAMES}: the merged file's
     * @param stripeBytes about the bytes of a stripe written
     */
    public OrcMerge(String codec, long stripeBytes) {
        this.codec = ParallelOrcWriter.codecKind(codec);
        this.stripeBytes = stripeBytes;
    }

    /** What files must share to be merged: their schema and user metadata (what readers are told about them). */
    public static String kindOf(FileSystem fs, Path file) throws IOException {
        try (Reader reader = open(fs, file, new Configuration(false))) {
            return reader.getSchema() + "\n" + metadata(reader);
        }
    }

    /** A merged file: its records and bytes. */
    public record Merged(long records, long bytes) {
    }

    /** Writes the files' rows, in the order given, as one file to {@code out} (flushed, not closed). */
    public Merged merge(FileSystem fs, List<Path> files, OutputStream out) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("No ORC file to merge");
        }
        TypeDescription schema;
        Map<String, String> metadata;
        try (Reader first = open(fs, files.get(0), conf)) {
            schema = first.getSchema();
            metadata = metadata(first);
        }
        ParallelOrcWriter.CountingStream counted = new ParallelOrcWriter.CountingStream(out);
        OrcFile.WriterOptions options = ParallelOrcWriter.options(conf, schema, codec, stripeBytes, stripeBytes);
        options.physicalWriter(new NanSafeStatistics(new FSDataOutputStream(counted, null), options));
        WriterImpl writer = new WriterImpl(null, ParallelOrcWriter.PATH, options);
        long records = 0;
        try {
            VectorizedRowBatch batch = schema.createRowBatch();
            for (Path file : files) {
                try (Reader reader = open(fs, file, conf); RecordReader rows = reader.rows()) {
                    if (!reader.getSchema().equals(schema)) {
                        throw new IOException("ORC file " + file + " has another schema than " + files.get(0)
                                + ": files of one schema are merged");
                    }
                    long read = 0;
                    while (rows.nextBatch(batch)) {
                        writer.addRowBatch(batch);
                        read += batch.size;
                    }
                    if (read != reader.getNumberOfRows()) {
                        throw new IOException("ORC file " + file + " gave " + read + " rows of its "
                                + reader.getNumberOfRows());
                    }
                    records += read;
                }
            }
            metadata.forEach((key, value) -> writer.addUserMetadata(key,
                    ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8))));
        } finally {
            writer.close();
        }
        return new Merged(records, counted.count());
    }

    private static Reader open(FileSystem fs, Path file, Configuration conf) throws IOException {
        return OrcFile.createReader(file, OrcFile.readerOptions(conf).filesystem(fs).useUTCTimestamp(true)
                .convertToProlepticGregorian(true));
    }

    private static Map<String, String> metadata(Reader reader) {
        Map<String, String> metadata = new TreeMap<>();
        for (String key : reader.getMetadataKeys()) {
            metadata.put(key, StandardCharsets.UTF_8.decode(reader.getMetadataValue(key)).toString());
        }
        return metadata;
    }
}
