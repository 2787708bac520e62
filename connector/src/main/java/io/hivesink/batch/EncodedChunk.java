package io.hivesink.batch;

import java.util.List;
import java.util.Map;

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

    EncodedChunk(byte[] data, int[] ends, RecordGroup[] groups, int count, Map<RecordGroup, GroupStats> stats,
            List<RejectedRecord> rejected, RuntimeException failure) {
        this.rejected = rejected;
        this.data = data;
        this.ends = ends;
        this.groups = groups;
        this.count = count;
        this.stats = stats;
        this.failure = failure;
    }

    int start(int record) {
        return record == 0 ? 0 : ends[record - 1];
    }

    int length(int record) {
        return ends[record] - start(record);
    }
}
