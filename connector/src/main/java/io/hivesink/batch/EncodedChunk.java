package io.hivesink.batch;

import java.util.Map;

import org.apache.kafka.connect.errors.DataException;

/**
 * A run of consecutive records of the open batch, encoded: their Avro datums back to back in one exact-size array,
 * and the file group each belongs to. If a record could not be encoded, the chunk ends before it and carries the
 * error.
 */
final class EncodedChunk {

    final byte[] data;
    final int[] ends;
    final RecordGroup[] groups;
    final int count;
    final Map<RecordGroup, GroupStats> stats;
    final DataException failure;

    EncodedChunk(byte[] data, int[] ends, RecordGroup[] groups, int count, Map<RecordGroup, GroupStats> stats,
            DataException failure) {
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
