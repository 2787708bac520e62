package io.hivesink.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;

/**
 * Merges Parquet files of one schema into one file of full row groups: what a compaction does with a partition's
 * small Parquet files. Appending the files' row groups as they are would keep every row group as small as the batch
 * that wrote it, and readers plan, skip and read by row group. So each row group written takes the values of
 * consecutive row groups read, up to about {@code rowGroupBytes} of them uncompressed, and encodes them again with
 * the connector's column writers (their dictionaries and pages, and {@link NanSafePages}' statistics).
 *
 * <p>Values are copied column by column with their repetition and definition levels, as the column readers give
 * them: no record is assembled, nested and repeated columns come out as they went in, and rows keep the files' order.
 * One thread copies: compaction runs beside landing, on a bounded share of the pool.
 */
public final class ParquetMerge {

    private final CompressionCodecName codec;
    private final long rowGroupBytes;
    private final ParquetProperties properties;
    private final Configuration hadoopConf = new Configuration(false);

    /**
     * @param codec         one of {@link io.hivesink.config.ParquetCodecs#NAMES}: the merged file's
     * @param dictionary    whether columns are dictionary-encoded (until a column's dictionary stops paying)
     * @param rowGroupBytes uncompressed bytes of values per row group written
     * @param pageBytes     uncompressed bytes per page, and the largest dictionary page
     */
    public ParquetMerge(String codec, boolean dictionary, long rowGroupBytes, int pageBytes) {
        this.codec = ParallelParquetWriter.codecName(codec);
        this.rowGroupBytes = rowGroupBytes;
        this.properties = ParallelParquetWriter.properties(dictionary, pageBytes);
    }

    /**
     * What files must share to be merged: their schema and footer metadata (which says how readers take their
     * values, such as the zone of their timestamps).
     */
    public static String kindOf(InputFile file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            FileMetaData footer = reader.getFooter().getFileMetaData();
            return footer.getSchema() + "\n" + new TreeMap<>(footer.getKeyValueMetaData());
        }
    }

    /** A merged file: its records and bytes. */
    public record Merged(long records, long bytes) {
    }

    /** Writes the files' rows, in the order given, as one file to {@code out} (flushed, not closed). */
    public Merged merge(List<InputFile> files, OutputStream out) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("No Parquet file to merge");
        }
        MessageType schema;
        Map<String, String> metadata;
        try (ParquetFileReader first = ParquetFileReader.open(files.get(0))) {
            schema = first.getFooter().getFileMetaData().getSchema();
            metadata = first.getFooter().getFileMetaData().getKeyValueMetaData();
        }
        StreamOutputFile file = new StreamOutputFile(out);
        ParquetFileWriter writer = new ParquetFileWriter(file, schema, ParquetFileWriter.Mode.CREATE, rowGroupBytes, 0,
                null, properties);
        writer.start();
        CodecFactory codecs = new CodecFactory(hadoopConf, properties.getPageSizeThreshold());
        long records = 0;
        RowGroup group = null;
        try {
            CompressionCodecFactory.BytesInputCompressor compressor = codecs.getCompressor(codec);
            for (InputFile input : files) {
                try (ParquetFileReader reader = ParquetFileReader.open(input)) {
                    FileMetaData footer = reader.getFooter().getFileMetaData();
                    if (!footer.getSchema().equals(schema)) {
                        throw new IOException("Parquet file " + input + " has another schema than " + files.get(0)
                                + ": files of one schema are merged");
                    }
                    List<BlockMetaData> blocks = reader.getRowGroups();
                    for (int index = 0; index < blocks.size(); index++) {
                        BlockMetaData block = blocks.get(index);
                        if (block.getRowCount() == 0) {
                            continue; // no values to copy (the connector writes none such)
                        }
                        if (group != null && group.full(block.getTotalByteSize())) {
                            records += group.writeTo(writer);
                            group.close();
                            group = null;
                        }
                        if (group == null) {
                            group = new RowGroup(schema, compressor);
                        }
                        try (PageReadStore pages = reader.readRowGroup(index)) {
                            group.add(pages, block, schema, footer.getCreatedBy());
                        }
                        group.bytes += block.getTotalByteSize();
                    }
                }
            }
            if (group != null) {
                records += group.writeTo(writer);
            }
        } finally {
            if (group != null) {
                group.close();
            }
            codecs.release();
        }
        writer.end(metadata);
        return new Merged(records, file.written());
    }

    /** The row group being written: a column write store of its own per column, so columns are copied one by one. */
    private final class RowGroup implements AutoCloseable {
        private final List<ColumnDescriptor> columns;
        private final ColumnChunkPageWriteStore[] pages;
        private final ColumnWriteStore[] stores;
        private long rows;
        private long bytes;

        RowGroup(MessageType schema, CompressionCodecFactory.BytesInputCompressor compressor) {
            columns = schema.getColumns();
            pages = new ColumnChunkPageWriteStore[columns.size()];
            stores = new ColumnWriteStore[columns.size()];
            for (int i = 0; i < columns.size(); i++) {
                MessageType column = ParquetSchemas.pruned(schema, Set.of(List.of(columns.get(i).getPath())));
                pages[i] = new ColumnChunkPageWriteStore(compressor, column, properties.getAllocator(),
                        properties.getColumnIndexTruncateLength(), properties.getPageWriteChecksumEnabled());
                stores[i] = properties.newColumnWriteStore(column, new NanSafePages(pages[i]));
            }
        }

        void add(PageReadStore read, BlockMetaData block, MessageType schema, String createdBy) {
            ColumnReadStoreImpl readers = new ColumnReadStoreImpl(read, new Ignored(), schema, createdBy);
            for (int i = 0; i < columns.size(); i++) {
                ColumnChunkMetaData chunk = block.getColumns().get(i);
                if (!Arrays.equals(chunk.getPath().toArray(), columns.get(i).getPath())) {
                    throw new IllegalStateException("Column chunk " + i + " is " + chunk.getPath() + ", not "
                            + columns.get(i));
                }
                long records = copy(readers.getColumnReader(columns.get(i)), chunk.getValueCount(), stores[i],
                        columns.get(i));
                if (records != read.getRowCount()) {
                    throw new IllegalStateException("Column " + columns.get(i) + " holds " + records
                            + " records of a row group of " + read.getRowCount());
                }
            }
            rows += read.getRowCount();
        }

        /** Whether a row group read of {@code more} bytes would take this one over its size. */
        boolean full(long more) {
            return bytes > 0 && bytes + more > rowGroupBytes;
        }

        long writeTo(ParquetFileWriter writer) throws IOException {
            writer.startBlock(rows);
            for (int i = 0; i < columns.size(); i++) {
                stores[i].flush();
                pages[i].flushToFileWriter(writer);
            }
            writer.endBlock();
            return rows;
        }

        @Override
        public void close() {
            for (int i = 0; i < columns.size(); i++) {
                stores[i].close();
                pages[i].close();
            }
        }
    }

    /** Copies a column chunk's values with their levels; returns its records (the values at repetition level 0). */
    static long copy(ColumnReader in, long values, ColumnWriteStore store, ColumnDescriptor column) {
        ColumnWriter out = store.getColumnWriter(column);
        int defined = column.getMaxDefinitionLevel();
        long records = 0;
        for (long v = 0; v < values; v++) {
            int repetition = in.getCurrentRepetitionLevel();
            int definition = in.getCurrentDefinitionLevel();
            if (repetition == 0) {
                if (records > 0) {
                    store.endRecord();
                }
                records++;
            }
            if (definition < defined) {
                out.writeNull(repetition, definition);
            } else {
                switch (column.getPrimitiveType().getPrimitiveTypeName()) {
                    case INT32 -> out.write(in.getInteger(), repetition, definition);
                    case INT64 -> out.write(in.getLong(), repetition, definition);
                    case FLOAT -> out.write(in.getFloat(), repetition, definition);
                    case DOUBLE -> out.write(in.getDouble(), repetition, definition);
                    case BOOLEAN -> out.write(in.getBoolean(), repetition, definition);
                    // a value of the reader's page: what the writer keeps of it (its dictionary, statistics, column
                    // index) is copied, rather than pinning the page until the file is written
                    case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> out.write(
                            Binary.fromReusedByteBuffer(in.getBinary().toByteBuffer()), repetition, definition);
                }
            }
            in.consume();
        }
        if (records > 0) {
            store.endRecord();
        }
        return records;
    }

    /** The converters a column reader asks for: values are taken from the reader, never handed to these. */
    private static final class Ignored extends GroupConverter {
        @Override
        public Converter getConverter(int fieldIndex) {
            return new PrimitiveConverter() {
                @Override
                public GroupConverter asGroupConverter() {
                    return new Ignored();
                }
            };
        }

        @Override
        public void start() {
        }

        @Override
        public void end() {
        }
    }
}
