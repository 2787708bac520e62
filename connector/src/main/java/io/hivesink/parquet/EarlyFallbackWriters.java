package io.hivesink.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.BooleanPlainValuesWriter;
import org.apache.parquet.column.values.plain.FixedLenByteArrayPlainValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;

/**
 * Parquet's version-1 value writers (a dictionary per column, plain values once it does not pay), except that a
 * column gives its dictionary up after its first {@value #SAMPLE} values when they are nearly all distinct.
 *
 * <p>Parquet's own writers keep every value of a column in a hash map until the dictionary outgrows a page or the
 * first page ends, and only then find that plain values are smaller: on columns of random numbers or unique strings
 * (ids, amounts, timestamps), about half of a wide table, that lookup is most of the writing time (profiled: 70% of
 * it on the 300-column benchmark table), spent to throw the dictionary away. The early check applies Parquet's own
 * rule (dictionary plus indexes smaller than the plain values) to the first {@value #SAMPLE} values. A column whose
 * values repeat less than that sample shows (many distinct values, each repeated far apart) is written plain and a
 * little larger than a dictionary would make it.
 */
final class EarlyFallbackWriters implements ValuesWriterFactory {

    /** Values a column's dictionary is judged on. */
    static final int SAMPLE = 4096;

    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties parquetProperties) {
        this.properties = parquetProperties;
    }

    @Override
    @SuppressWarnings("deprecation") // PLAIN_DICTIONARY is what version-1 files (and Hive 2.3's Parquet 1.8) name it
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        int maxDictionaryBytes = properties.getDictionaryPageSizeThreshold();
        ByteBufferAllocator allocator = properties.getAllocator();
        ValuesWriter plain = switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case BOOLEAN -> new BooleanPlainValuesWriter();
            case FIXED_LEN_BYTE_ARRAY -> new FixedLenByteArrayPlainValuesWriter(
                    column.getPrimitiveType().getTypeLength(), properties.getInitialSlabSize(),
                    properties.getPageSizeThreshold(), allocator);
            case INT96 -> new FixedLenByteArrayPlainValuesWriter(12, properties.getInitialSlabSize(),
                    properties.getPageSizeThreshold(), allocator);
            default -> new PlainValuesWriter(properties.getInitialSlabSize(), properties.getPageSizeThreshold(),
                    allocator);
        };
        if (!properties.isDictionaryEnabled(column)) {
            return plain;
        }
        Encoding encoding = Encoding.PLAIN_DICTIONARY;
        DictionaryValuesWriter dictionary = switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case BINARY -> new BinaryDictionary(maxDictionaryBytes, encoding, allocator);
            case INT96 -> new Int96Dictionary(maxDictionaryBytes, encoding, allocator);
            case INT32 -> new IntDictionary(maxDictionaryBytes, encoding, allocator);
            case INT64 -> new LongDictionary(maxDictionaryBytes, encoding, allocator);
            case FLOAT -> new FloatDictionary(maxDictionaryBytes, encoding, allocator);
            case DOUBLE -> new DoubleDictionary(maxDictionaryBytes, encoding, allocator);
            default -> null; // booleans and, in version 1, fixed-length arrays have none
        };
        return dictionary == null ? plain : FallbackValuesWriter.of(dictionary, plain);
    }

    /**
     * A column's first page, judged once it has {@value #SAMPLE} values: whether its dictionary pays, by Parquet's
     * rule, dictionary bytes plus bit-packed indexes against the plain bytes. Later pages are not judged here (Parquet
     * still falls back when the dictionary outgrows a page).
     */
    static final class FirstPageSample {
        private boolean firstPage = true;
        private long plainBytes;

        /** A value of this many plain bytes was written. */
        void wrote(int bytes) {
            if (firstPage) {
                plainBytes += bytes;
            }
        }

        void pageEnded() {
            firstPage = false;
        }

        boolean notWorthIt(int values, int distinct, long dictionaryBytes) {
            if (!firstPage || values != SAMPLE) {
                return false;
            }
            int bitWidth = 32 - Integer.numberOfLeadingZeros(Math.max(1, distinct - 1));
            long indexBytes = ((long) values * bitWidth + 7) / 8;
            return dictionaryBytes + indexBytes >= plainBytes;
        }
    }

    private static final class BinaryDictionary extends DictionaryValuesWriter.PlainBinaryDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        BinaryDictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, encoding, encoding, allocator);
        }

        @Override
        public void writeBytes(Binary v) {
            super.writeBytes(v);
            sample.wrote(4 + v.length());
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }

    private static final class Int96Dictionary
            extends DictionaryValuesWriter.PlainFixedLenArrayDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        Int96Dictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, 12, encoding, encoding, allocator);
        }

        @Override
        public void writeBytes(Binary v) {
            super.writeBytes(v);
            sample.wrote(12);
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }

    private static final class IntDictionary extends DictionaryValuesWriter.PlainIntegerDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        IntDictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, encoding, encoding, allocator);
        }

        @Override
        public void writeInteger(int v) {
            super.writeInteger(v);
            sample.wrote(4);
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }

    private static final class LongDictionary extends DictionaryValuesWriter.PlainLongDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        LongDictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, encoding, encoding, allocator);
        }

        @Override
        public void writeLong(long v) {
            super.writeLong(v);
            sample.wrote(8);
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }

    private static final class FloatDictionary extends DictionaryValuesWriter.PlainFloatDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        FloatDictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, encoding, encoding, allocator);
        }

        @Override
        public void writeFloat(float v) {
            super.writeFloat(v);
            sample.wrote(4);
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }

    private static final class DoubleDictionary extends DictionaryValuesWriter.PlainDoubleDictionaryValuesWriter {
        private final FirstPageSample sample = new FirstPageSample();

        DoubleDictionary(int maxDictionaryBytes, Encoding encoding, ByteBufferAllocator allocator) {
            super(maxDictionaryBytes, encoding, encoding, allocator);
        }

        @Override
        public void writeDouble(double v) {
            super.writeDouble(v);
            sample.wrote(8);
        }

        @Override
        public BytesInput getBytes() {
            sample.pageEnded();
            return super.getBytes();
        }

        @Override
        public boolean shouldFallBack() {
            return super.shouldFallBack() || sample.notWorthIt(encodedValues.size(), getDictionarySize(),
                    dictionaryByteSize);
        }
    }
}
