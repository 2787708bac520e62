package io.hivesink.batch;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where each Kafka partition stands: the next offset expected, so that a record delivered again after a retriable
 * failure (an offset already buffered or committed) is skipped and lands once; the first offset the open batch
 * holds; where the open batch's stretch of the partition starts (the previous batch's end, or where the partition
 * resumed), which the commit checks against the offset committed before it, so that batches follow each other
 * without overlap or gap whatever offsets Kafka skips; and where the task started the partition (its committed
 * offset, or, never committed, the first offset taken since it was assigned), which the commit checks the first
 * batch of a partition never committed against.
 */
final class AssignmentOffsets {

    private final Map<TopicPartition, Progress> progress = new HashMap<>();
    /** Consecutive records mostly come from one partition: its progress is at hand without a look-up. */
    private Progress last;

    /** Whether the record's offset was taken before (buffered or committed): it is skipped. */
    boolean isTaken(SinkRecord record) {
        return record.kafkaOffset() < progressOf(record).next;
    }

    /** Whether the record lies past the offset its partition expects next, where that is known. */
    boolean isAhead(SinkRecord record) {
        long next = progressOf(record).next;
        return next >= 0 && record.kafkaOffset() > next;
    }

    /** Takes the record's offset into the open batch. */
    void take(SinkRecord record) {
        Progress partition = progressOf(record);
        long offset = record.kafkaOffset();
        if (partition.batchFirst < 0) {
            partition.batchFirst = offset;
            partition.batchFrom = partition.next >= 0 ? partition.next : offset;
        }
        if (partition.start < 0) {
            partition.start = partition.batchFrom;
        }
        partition.next = offset + 1;
    }

    private Progress progressOf(SinkRecord record) {
        Progress partition = last;
        if (partition != null && partition.tp.partition() == record.kafkaPartition()
                && partition.tp.topic().equals(record.topic())) {
            return partition;
        }
        TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
        last = progress.computeIfAbsent(tp, Progress::new);
        return last;
    }

    /** Per partition with records in the open batch, the offset after its last one. */
    Map<TopicPartition, Long> nextOffsets() {
        return inBatch(partition -> partition.next);
    }

    /**
     * Per partition with records in the open batch, where its stretch starts: the end of the batch before, or where
     * the partition resumed, or (neither known) its first record's offset.
     */
    Map<TopicPartition, Long> fromOffsets() {
        return inBatch(partition -> partition.batchFrom);
    }

    /**
     * Per partition with records in the open batch, where the task started it: where it resumed (its committed
     * offset), or, never committed, the first offset taken since it was assigned or read again.
     */
    Map<TopicPartition, Long> startOffsets() {
        return inBatch(partition -> partition.start);
    }

    private Map<TopicPartition, Long> inBatch(ToLongFunction<Progress> offset) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (Progress partition : progress.values()) {
            if (partition.batchFirst >= 0) {
                offsets.put(partition.tp, offset.applyAsLong(partition));
            }
        }
        return offsets;
    }

    /** The open batch was closed or dropped: the next one starts empty. */
    void endBatch() {
        for (Progress partition : progress.values()) {
            partition.batchFirst = -1;
        }
    }

    /**
     * Drops the open batch's records: each of its partitions expects again the offset its stretch started from.
     *
     * @return those offsets, to re-read the partitions from
     */
    Map<TopicPartition, Long> dropBatch() {
        Map<TopicPartition, Long> from = fromOffsets();
        for (Progress partition : progress.values()) {
            if (partition.batchFirst >= 0) {
                partition.next = partition.batchFrom;
            }
        }
        endBatch();
        return from;
    }

    /**
     * The partitions are read again from these offsets (committed in the metastore): what lies below is skipped,
     * and the next batch's stretch starts there.
     */
    void resumeAt(Map<TopicPartition, Long> offsets) {
        offsets.forEach((tp, offset) -> {
            Progress partition = progress.computeIfAbsent(tp, Progress::new);
            partition.next = offset;
            partition.start = offset;
        });
        last = null;
    }

    /** Forgets where the given partitions stood (they were revoked or rewound): any offset is taken again. */
    void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            progress.remove(tp);
        }
        last = null;
    }

    private static final class Progress {
        final TopicPartition tp;
        long next = -1;
        long batchFirst = -1;
        long batchFrom = -1;
        long start = -1;

        Progress(TopicPartition tp) {
            this.tp = tp;
        }
    }
}
