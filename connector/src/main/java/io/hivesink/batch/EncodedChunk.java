package io.hivesink.batch;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.errors.RetriableException;

/**
 * A run of consecutive records of the open batch, encoded: their Avro datums back to back in one exact-size array,
 * and the file group each belongs to. Records that cannot land are either set aside as rejected (when the task
 * reports bad records) or end the chunk, which then carries the error.
 */
final class EncodedChunk {

    final byte[] data;
    final int[] ends;
    final RecordGroup[] groups;
    final int count;
    final Map<RecordGroup, GroupStats> stats;
    final List<RejectedRecord> rejected;
    final RuntimeException failure;
    /** The chunk's records, kept only when it failed for a reason that may pass: they are encoded again. */
    final List<TakenRecord> toRetry;

    EncodedChunk(byte[] data, int[] ends, RecordGroup[] groups, int count, Map<RecordGroup, GroupStats> stats,
            List<RejectedRecord> rejected, RuntimeException failure) {
        this(data, ends, groups, count, stats, rejected, failure, null);
    }

    private EncodedChunk(byte[] data, int[] ends, RecordGroup[] groups, int count, Map<RecordGroup, GroupStats> stats,
            List<RejectedRecord> rejected, RuntimeException failure, List<TakenRecord> toRetry) {
        this.toRetry = toRetry;
        this.rejected = rejected;
        this.data = data;
        this.ends = ends;
        this.groups = groups;
        this.count = count;
        this.stats = stats;
        this.failure = failure;
    }

    /**
     * This chunk, or, if it failed for a reason that may pass (the metastore could not admit a table for now), a
     * failed chunk that keeps {@code records} to encode again.
     */
    EncodedChunk keepingToRetry(List<TakenRecord> records) {
        if (!(failure instanceof RetriableException)) {
            return this;
        }
        return new EncodedChunk(new byte[0], new int[0], new RecordGroup[0], 0, Map.of(), List.of(), failure,
                records);
    }

    int start(int record) {
        return record == 0 ? 0 : ends[record - 1];
    }

    int length(int record) {
        return ends[record] - start(record);
    }
}
