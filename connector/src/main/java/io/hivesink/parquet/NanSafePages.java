package io.hivesink.parquet;

import java.io.IOException;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriteStore;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Gives a float or double column chunk that holds a NaN no min and max, so that no reader skips its row group.
 *
 * <p>Why: parquet-java 1.16 and later leave NaN out of a chunk's min and max and count it in {@code nan_count}, a
 * field readers on parquet-java 1.15 and older do not know. They take [min, max] as every value the chunk holds:
 * Hive 4.0.1 (Parquet 1.13) skips a row group of [0.0, 0.0, NaN] for {@code d <> 0}, Spark 4.0.1 (Parquet 1.15,
 * where NaN is above every number) skips it for {@code d > 1}. A page whose statistics count a NaN is handed on with
 * empty statistics instead; Parquet then writes the whole chunk without statistics and without a column index
 * (PARQUET-2365), which every reader takes as "may hold anything". Chunks without NaN keep their statistics.
 */
final class NanSafePages implements PageWriteStore {

    private final PageWriteStore pages;

    NanSafePages(PageWriteStore pages) {
        this.pages = pages;
    }

    @Override
    public PageWriter getPageWriter(ColumnDescriptor column) {
        PageWriter writer = pages.getPageWriter(column);
        PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
        return type == PrimitiveTypeName.FLOAT || type == PrimitiveTypeName.DOUBLE ? new Guarded(writer) : writer;
    }

    /** The page statistics a reader may rely on: none where NaN was counted. */
    static Statistics<?> withoutNan(Statistics<?> statistics) {
        if (statistics != null && statistics.isNanCountSet() && statistics.getNanCount() > 0) {
            return Statistics.getBuilderForReading(statistics.type()).build();
        }
        return statistics;
    }

    private static final class Guarded implements PageWriter {
        private final PageWriter writer;

        Guarded(PageWriter writer) {
            this.writer = writer;
        }

        @Override
        @Deprecated
        public void writePage(BytesInput bytes, int valueCount, Statistics<?> statistics, Encoding rlEncoding,
                Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
            writer.writePage(bytes, valueCount, withoutNan(statistics), rlEncoding, dlEncoding, valuesEncoding);
        }

        @Override
        public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                Encoding rlEncoding, Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
            writer.writePage(bytes, valueCount, rowCount, withoutNan(statistics), rlEncoding, dlEncoding,
                    valuesEncoding);
        }

        @Override
        @Deprecated
        public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                SizeStatistics sizeStatistics, Encoding rlEncoding, Encoding dlEncoding, Encoding valuesEncoding)
                throws IOException {
            writer.writePage(bytes, valueCount, rowCount, withoutNan(statistics), sizeStatistics, rlEncoding,
                    dlEncoding, valuesEncoding);
        }

        @Override
        public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                SizeStatistics sizeStatistics, GeospatialStatistics geospatialStatistics, Encoding rlEncoding,
                Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
            writer.writePage(bytes, valueCount, rowCount, withoutNan(statistics), sizeStatistics,
                    geospatialStatistics, rlEncoding, dlEncoding, valuesEncoding);
        }

        @Override
        public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                BytesInput definitionLevels, Encoding dataEncoding, BytesInput data, Statistics<?> statistics)
                throws IOException {
            writer.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding,
                    data, withoutNan(statistics));
        }

        @Override
        @Deprecated
        public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                BytesInput definitionLevels, Encoding dataEncoding, BytesInput data, Statistics<?> statistics,
                SizeStatistics sizeStatistics) throws IOException {
            writer.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding,
                    data, withoutNan(statistics), sizeStatistics);
        }

        @Override
        public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                BytesInput definitionLevels, Encoding dataEncoding, BytesInput data, Statistics<?> statistics,
                SizeStatistics sizeStatistics, GeospatialStatistics geospatialStatistics) throws IOException {
            writer.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding,
                    data, withoutNan(statistics), sizeStatistics, geospatialStatistics);
        }

        @Override
        public long getMemSize() {
            return writer.getMemSize();
        }

        @Override
        public long allocatedSize() {
            return writer.allocatedSize();
        }

        @Override
        public void writeDictionaryPage(DictionaryPage page) throws IOException {
            writer.writeDictionaryPage(page);
        }

        @Override
        public String memUsageString(String prefix) {
            return writer.memUsageString(prefix);
        }

        @Override
        public void close() {
            writer.close();
        }
    }
}
