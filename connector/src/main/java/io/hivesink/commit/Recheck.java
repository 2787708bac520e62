package io.hivesink.commit;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * A claim checked again once its partitions' probation ended ({@link ProbationTerm}).
 *
 * @param passed still this instance's alone: their records are taken from the committed offsets
 * @param undone another state owns them again (a write its holder sent before its lock was broken landed after the
 *     claim): claimed again, which rolls that write's batch forward; nothing of them was taken, so nothing lands twice
 * @param lost another task took them since, as any claim does
 * @param committed the committed offsets of the passed partitions that have any
 */
public record Recheck(Set<TopicPartition> passed, Set<TopicPartition> undone, Set<TopicPartition> lost,
        Map<TopicPartition, Long> committed) {
}
