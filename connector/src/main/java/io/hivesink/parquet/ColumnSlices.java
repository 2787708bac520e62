package io.hivesink.parquet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.avro.Schema;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A file's Parquet schema cut into runs of consecutive columns of about equal work, at least one per thread and one
 * per {@value #MAX_RUN_COLUMNS} columns: a thread writes a run's column chunks of a row group, and the runs, written
 * one after the other, are the row group's chunks in the file schema's order.
 *
 * @param datums  the schema the datums are encoded with
 * @param columns the table's schema: the file's columns
 * @param file    the schema of the file, of those columns
 * @param runs    each run's schema: the file schema pruned to the run's columns
 */
record ColumnSlices(Schema datums, Schema columns, MessageType file, List<MessageType> runs) {

    /**
     * About the most columns one thread writes at a time (runs are cut by work, so one may hold more): each value of
     * a row goes to another column's buffers and dictionary, and a run of many columns no longer fits a core's cache.
     * With one thread, StockQuote's 78 columns as two runs were written about 1.8x faster than as one, though each run
     * reads every datum; with two threads, Wide300's 300 columns as five runs took about as long as as two.
     */
    static final int MAX_RUN_COLUMNS = 64;

    /** Strings and byte arrays cost about this many times a number to encode (hashing, copying). */
    private static final int BINARY_WEIGHT = 3;

    static ColumnSlices of(Schema datums, Schema columns, int threads) {
        MessageType file = ParquetSchemas.of(columns);
        List<ColumnDescriptor> leaves = file.getColumns();
        int[] weights = leaves.stream().mapToInt(ColumnSlices::weight).toArray();
        long total = Arrays.stream(weights).asLongStream().sum();
        int count = Math.min(leaves.size(),
                Math.max(threads, (leaves.size() + MAX_RUN_COLUMNS - 1) / MAX_RUN_COLUMNS));
        List<MessageType> runs = new ArrayList<>(count);
        int next = 0;
        long done = 0;
        for (int run = 0; run < count; run++) {
            int runsAfter = count - run - 1;
            long target = total * (run + 1) / count;
            Set<List<String>> kept = new HashSet<>();
            // each run takes at least one column and leaves one for every run after it; the last takes the rest
            do {
                kept.add(List.of(leaves.get(next).getPath()));
                done += weights[next];
                next++;
            } while (next < leaves.size() - runsAfter && (runsAfter == 0 || done + weights[next] <= target));
            runs.add(ParquetSchemas.pruned(file, kept));
        }
        return new ColumnSlices(datums, columns, file, List.copyOf(runs));
    }

    private static int weight(ColumnDescriptor column) {
        PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
        return type == PrimitiveTypeName.BINARY || type == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                || type == PrimitiveTypeName.INT96 ? BINARY_WEIGHT : 1;
    }
}
