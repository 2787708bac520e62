package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claimed partitions whose consumer has not yet shown where it stands against the offset the metastore committed.
 *
 * <p>A claimed partition is not sought to the metastore's offset when it opens. Connect takes an offset a task seeks to
 * for the group's committed one, and skips reporting an offset it believes Kafka already holds: the batch committed
 * while the partition last closed (Connect asks for the offsets to report before it closes partitions) would then
 * never reach Kafka's group offsets, and an idle partition would show a batch of phantom lag for good. Instead the
 * consumer starts where Kafka's group offset says, and the first record delivered (or, before any, the position
 * Connect reports at its offset commit) tells where that is:
 * <ul>
 * <li>at the metastore's offset: nothing to do;</li>
 * <li>behind it by at most {@code readThroughLimit} records (the batch committed at the last close): the records are
 * read and skipped as already taken, and Connect reports the metastore's offset at its next offset commit;</li>
 * <li>further behind (Kafka's offsets expired, or were never reported): the partition is sought forward, to the
 * record before the metastore's offset, which is read through: Connect takes the offset sought to as the one Kafka
 * holds, so sought to the metastore's offset itself, an idle partition would never have it reported, and its group
 * would lag by the records skipped for good. (Where that record is gone from the log too, the consumer resets to
 * the log's start; if that is the metastore's offset exactly, the same holds until the partition's next record.)</li>
 * <li>ahead of it (Kafka's offsets were moved, or the metastore's state restored): sought back, since records the
 * metastore does not hold would otherwise be skipped. A gap Kafka leaves in its offsets (a transaction marker,
 * compaction) looks the same and costs one needless seek.</li>
 * </ul>
 */
final class ResumePoints {

    private static final Logger log = LoggerFactory.getLogger(ResumePoints.class);

    private final long readThroughLimit;
    /** Per partition not checked yet, the offset the metastore committed. */
    private final Map<TopicPartition, Long> unchecked = new HashMap<>();

    /**
     * @param readThroughLimit how many records the consumer may be behind and still read through rather than seek
     */
    ResumePoints(long readThroughLimit) {
        this.readThroughLimit = readThroughLimit;
    }

    /** The partitions were claimed, resuming at these offsets; their consumers' positions are not known yet. */
    void claimed(Map<TopicPartition, Long> committed) {
        unchecked.putAll(committed);
    }

    /** The partitions closed, or are sought anyway: there is nothing to check. */
    void forget(Collection<TopicPartition> partitions) {
        if (!unchecked.isEmpty()) {
            unchecked.keySet().removeAll(partitions);
        }
    }

    /** Whether no partition waits to be checked: records need no look. */
    boolean isEmpty() {
        return unchecked.isEmpty();
    }

    /**
     * Checks the first record of a partition delivered since it was claimed.
     *
     * @return the offset to seek its partition to (the rest of this delivery of it is stale), or -1 to take it as it
     *     comes
     */
    long seekFor(SinkRecord record) {
        TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
        Long committed = unchecked.remove(tp);
        return committed == null ? -1 : seekFor(tp, record.kafkaOffset(), committed, "its first record");
    }

    /**
     * Checks the positions Connect reports at its offset commit, for partitions no record was delivered from yet.
     *
     * @return the seeks they call for
     */
    Map<TopicPartition, Long> positionsReported(Map<TopicPartition, OffsetAndMetadata> positions) {
        if (unchecked.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, Long> due = new HashMap<>();
        positions.forEach((tp, position) -> {
            Long committed = unchecked.get(tp);
            if (committed == null || position.offset() < committed) {
                return; // records to read through are on their way (or, paused, wait for their first delivery)
            }
            unchecked.remove(tp);
            long seek = seekFor(tp, position.offset(), committed, "the consumer's position");
            if (seek >= 0) {
                due.put(tp, seek);
            }
        });
        return due;
    }

    private long seekFor(TopicPartition tp, long position, long committed, String what) {
        if (position == committed || (position < committed && committed - position <= readThroughLimit)) {
            return -1;
        }
        if (position > committed) {
            log.info("Partition {} resumes at offset {} (committed in the metastore), but {} is at offset {}: "
                    + "records the metastore does not hold would be skipped, so it is read again from {} (a gap in "
                    + "Kafka's offsets, such as a transaction marker, also does this)", tp, committed, what,
                    position, committed);
            return committed;
        }
        long soughtTo = committed - 1; // more than readThroughLimit above the position, so at least 0
        log.info("Partition {} resumes at offset {} (committed in the metastore), but {} is at offset {}, more than {} "
                + "records behind: it is sought forward to {} and that record read through, so that Kafka's group "
                + "offset reaches {}", tp, committed, what, position, readThroughLimit, soughtTo, committed);
        return soughtTo;
    }
}
