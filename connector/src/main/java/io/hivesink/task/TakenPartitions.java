package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.TaskState;

/**
 * Partitions another task claimed while Connect still had them assigned here: Kafka's group gave them away (this
 * task's consumer overran {@code max.poll.interval.ms} or lost its session) and tells this consumer at its next poll,
 * when Connect closes them. Until then they stay paused and their records are not taken. A partition still assigned
 * {@link #CLAIM_AGAIN_AFTER_MS} after it was taken is claimed again: the group gave it to this task after all (a
 * claim another task made late, from an assignment it had already lost), and left alone it would never land. Taken
 * back too early, it costs the other task a dropped batch, not a record: every claim is fenced.
 */
final class TakenPartitions {

    private static final Logger log = LoggerFactory.getLogger(TakenPartitions.class);
    /** Longer than a consumer takes to hear of a rebalance at its next poll. */
    static final long CLAIM_AGAIN_AFTER_MS = 60_000;

    private final AssignmentPauses pauses;
    private final LongSupplier clock;
    /** When each was found taken. */
    private final Map<TopicPartition, Long> takenAt = new HashMap<>();

    TakenPartitions(AssignmentPauses pauses, LongSupplier clock) {
        this.pauses = pauses;
        this.clock = clock;
    }

    /** Another task claimed them: paused, and their records not taken, until they close or are claimed again. */
    void taken(Collection<TopicPartition> partitions) {
        long now = clock.getAsLong();
        partitions.forEach(tp -> takenAt.putIfAbsent(tp, now));
        Set<TopicPartition> assigned = new HashSet<>(partitions);
        assigned.retainAll(pauses.assignment()); // Connect refuses to pause a partition no longer assigned
        pauses.pause(AssignmentPauses.Reason.TAKEN, assigned);
    }

    /** The partitions another task took, whose records are not taken. */
    Set<TopicPartition> partitions() {
        return Set.copyOf(takenAt.keySet());
    }

    /**
     * The partitions taken {@link #CLAIM_AGAIN_AFTER_MS} ago or longer that the consumer still has assigned, to be
     * claimed again; each is handed out once (a failed claim waits as any other, {@link PostponedClaims}).
     */
    List<TopicPartition> dueToClaimAgain() {
        if (takenAt.isEmpty()) {
            return List.of();
        }
        long now = clock.getAsLong();
        Set<TopicPartition> assigned = pauses.assignment();
        List<TopicPartition> due = takenAt.entrySet().stream()
                .filter(e -> now - e.getValue() >= CLAIM_AGAIN_AFTER_MS && assigned.contains(e.getKey()))
                .map(Map.Entry::getKey).sorted(TaskState.PARTITION_ORDER).toList();
        if (!due.isEmpty()) {
            log.warn("Partitions {} were taken by another task {} s ago or more and are still assigned to this one: "
                    + "claiming them again", due, CLAIM_AGAIN_AFTER_MS / 1000);
            forget(due);
        }
        return due;
    }

    /** How soon a taken partition is due to be claimed again, or -1 if none is taken. */
    long msUntilDue() {
        long now = clock.getAsLong();
        return takenAt.values().stream().mapToLong(at -> Math.max(0, at + CLAIM_AGAIN_AFTER_MS - now)).min()
                .orElse(-1);
    }

    /** The partitions are claimed again (still assigned): nothing holds them here any more. */
    void forget(Collection<TopicPartition> partitions) {
        if (!takenAt.isEmpty()) {
            takenAt.keySet().removeAll(partitions);
            pauses.resume(AssignmentPauses.Reason.TAKEN, partitions);
        }
    }

    /** The partitions closed: forgotten here; {@link AssignmentPauses#closed} lifts their pauses. */
    void closed(Collection<TopicPartition> partitions) {
        takenAt.keySet().removeAll(partitions);
    }
}
