package io.hivesink.task;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.ClaimNotPossibleYetException;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.config.BatchConfig;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metrics.TaskMetrics;

/**
 * Committed offsets past the end of a partition's Kafka log: the topic was deleted and created again, or its log was
 * truncated (an unclean leader election). Resumed there, the task would skip every record below the committed offset
 * as already landed, and nothing would say so. Checked when partitions are claimed, against the logs as the task's
 * consumer sees them ({@link LogOffsets}): the task fails naming the partition, both offsets and the fix, or, where
 * {@value BatchConfig#OFFSETS_AHEAD_POLICY} says so, reads the partition from the start of its log and moves its
 * committed offset there.
 */
final class OffsetsAhead {

    private static final Logger log = LoggerFactory.getLogger(OffsetsAhead.class);

    private final LogOffsets logs;
    private final boolean resumeFromLogStart;
    private final ExactlyOnceCommitter committer;
    private final TaskMetrics metrics;

    OffsetsAhead(LogOffsets logs, boolean resumeFromLogStart, ExactlyOnceCommitter committer, TaskMetrics metrics) {
        this.logs = logs;
        this.resumeFromLogStart = resumeFromLogStart;
        this.committer = committer;
        this.metrics = metrics;
    }

    /**
     * @param committed where claimed partitions resume, as the metastore committed them
     * @return where they resume: as committed, or, for a partition whose log ends below it, the log's start
     * @throws ConnectException if a partition's log ends below its committed offset and the policy is to fail
     * @throws ClaimNotPossibleYetException if the committed offsets could not be moved for now
     */
    Map<TopicPartition, Long> check(Map<TopicPartition, Long> committed) {
        if (committed.isEmpty()) {
            return committed;
        }
        Map<TopicPartition, LogOffsets.LogRange> ranges = logs.ranges(committed.keySet());
        Map<TopicPartition, Long> moved = new HashMap<>();
        StringBuilder ahead = new StringBuilder();
        committed.forEach((tp, offset) -> {
            LogOffsets.LogRange range = ranges.get(tp);
            if (range != null && offset > range.end()) {
                moved.put(tp, range.start());
                ahead.append(ahead.length() == 0 ? "" : "; ").append(tp).append(": offset ").append(offset)
                        .append(" is committed in the metastore, but its log holds offsets ").append(range.start())
                        .append(" to ").append(range.end() - 1);
            }
        });
        if (moved.isEmpty()) {
            return committed;
        }
        if (!resumeFromLogStart) {
            throw new ConnectException("Committed offsets lie past the end of the partitions' logs (" + ahead + "). "
                    + "The topic was deleted and created again, or its log was truncated; read from there, the "
                    + "records below the committed offset would be skipped as landed. Check what happened to the "
                    + "topic; to land its log as it is now, restart the connector with "
                    + BatchConfig.OFFSETS_AHEAD_POLICY + "=log-start (the committed offsets move to the logs' start).");
        }
        try {
            committer.moveCommittedOffsets(moved);
        } catch (MetastoreException e) {
            throw new ClaimNotPossibleYetException("Could not move the committed offsets of " + moved.keySet()
                    + " to the start of their logs: " + e.getMessage(), e);
        }
        metrics.offsetsAheadOfLog(moved.size());
        log.warn("Committed offsets lie past the end of the partitions' logs ({}); as {}=log-start says, they are read "
                + "from the start of their logs, and their committed offsets moved there: {}", ahead,
                BatchConfig.OFFSETS_AHEAD_POLICY, moved);
        Map<TopicPartition, Long> resumed = new HashMap<>(committed);
        resumed.putAll(moved);
        return resumed;
    }
}
