package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.ProbationTerm;
import io.hivesink.commit.TaskState;

/**
 * Claimed partitions whose records wait, paused, until their claim is checked again ({@link ProbationTerm}): where
 * locks fence the states, a claim that took partitions from a state whose lock was broken less than a bound ago can
 * still be undone by a write the lock's holder sent before. Once the term is over, the task reads the states once and
 * takes the partitions' records, claims them again, or hands them to {@link TakenPartitions}.
 */
final class Probation {

    private static final Logger log = LoggerFactory.getLogger(Probation.class);
    /** A check that failed (the metastore away) is tried again this much later. */
    static final long RETRY_MS = 5_000;

    private final AssignmentPauses pauses;
    private final LongSupplier clock;
    /** When each partition's check is due, on the task's clock. */
    private final Map<TopicPartition, Long> terms = new HashMap<>();

    Probation(AssignmentPauses pauses, LongSupplier clock) {
        this.pauses = pauses;
        this.clock = clock;
    }

    /** The claimed partitions with a term wait, paused, until it is over. */
    void start(Map<TopicPartition, ProbationTerm> claimed) {
        if (claimed.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        claimed.forEach((tp, term) -> terms.put(tp, now + term.msLeft()));
        long longestMs = claimed.values().stream().mapToLong(ProbationTerm::msLeft).max().orElse(0);
        log.warn("Partitions {} were claimed from a task state whose metastore lock was broken less than the stale "
                + "bound ago: a write its holder sent before may still land and undo the claim. Their records wait "
                + "up to {} ms, then the claim is checked again", sorted(claimed.keySet()), longestMs);
        pauses.pause(AssignmentPauses.Reason.PROBATION, claimed.keySet());
    }

    /** The partitions on probation: their records are not taken. */
    Set<TopicPartition> partitions() {
        return Set.copyOf(terms.keySet());
    }

    /** The partitions whose term is over, to be checked now. */
    List<TopicPartition> due() {
        long now = clock.getAsLong();
        return sorted(terms.entrySet().stream().filter(e -> e.getValue() <= now).map(Map.Entry::getKey)
                .toList());
    }

    /** The check could not be made: it is tried again a little later. */
    void checkFailed(Collection<TopicPartition> partitions, RuntimeException why) {
        long retryAt = clock.getAsLong() + RETRY_MS;
        partitions.forEach(tp -> terms.computeIfPresent(tp, (p, dueMs) -> retryAt));
        log.warn("Could not check again the claim of {}; they stay paused and it is tried again in {} ms: {}",
                partitions, RETRY_MS, why.getMessage());
    }

    /** Their probation is over (checked, or closed): no longer paused for it. */
    void ended(Collection<TopicPartition> partitions) {
        terms.keySet().removeAll(partitions);
        pauses.resume(AssignmentPauses.Reason.PROBATION, partitions);
    }

    /** How soon a term is over, or -1 if none runs. */
    long msUntilDue() {
        long now = clock.getAsLong();
        return terms.values().stream().mapToLong(dueMs -> Math.max(0, dueMs - now)).min().orElse(-1);
    }

    /** The partitions closed: forgotten here; {@link AssignmentPauses#closed} lifts their pauses. */
    void closed(Collection<TopicPartition> partitions) {
        terms.keySet().removeAll(partitions);
    }

    private static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        return partitions.stream().sorted(TaskState.PARTITION_ORDER).toList();
    }
}
