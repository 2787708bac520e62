package io.hivesink.commit;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.batch.Batch;

/** The check that keeps a batch from landing records twice or skipping some: it must start where the last ended. */
final class SequenceCheck {

    private SequenceCheck() {
    }

    /**
     * Refuses a batch that does not follow on from the committed offsets, or, in a partition never committed, from
     * where the task started it (see {@link Batch}): a path that lost track of records would otherwise land a gap.
     */
    static void require(Batch batch, TaskState state, TaskRun run) {
        Map<TopicPartition, Long> expected = new LinkedHashMap<>();
        StringBuilder mismatches = new StringBuilder();
        batch.fromOffsets().entrySet().stream().sorted(Map.Entry.comparingByKey(TaskState.PARTITION_ORDER))
                .forEach(e -> {
                    TaskState.PartitionState stored = state.partitions().get(e.getKey());
                    boolean committed = stored != null && stored.nextOffset() != TaskState.PartitionState.NONE;
                    Long start = committed ? Long.valueOf(stored.nextOffset()) : batch.startOffsets().get(e.getKey());
                    if (start != null && start.longValue() != e.getValue()) {
                        expected.put(e.getKey(), start);
                        mismatches.append(mismatches.length() == 0 ? "" : ", ").append(e.getKey()).append(" from ")
                                .append(e.getValue()).append(committed ? " where " + start + " is committed"
                                        : " where the task resumed it at " + start + " and nothing is committed");
                    }
                });
        if (!expected.isEmpty()) {
            throw new BatchOutOfSequenceException("Batch " + batch.id() + " of task " + run.task() + " of "
                    + run.connector() + " does not follow on from the committed offsets (" + mismatches + "): "
                    + "committing it would land records twice or skip some. It is dropped and its partitions are "
                    + "read again from the committed offsets.", expected);
        }
    }
}
