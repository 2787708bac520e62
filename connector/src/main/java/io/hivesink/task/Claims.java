package io.hivesink.task;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.commit.ClaimNotPossibleYetException;
import io.hivesink.commit.ExactlyOnceCommitter;

/**
 * Takes ownership of assigned topic-partitions ({@link ExactlyOnceCommitter#claim}) and tells where each resumes: at
 * the offset the metastore committed, checked against what its log still holds ({@link OffsetsAhead}). An assignment
 * the metastore cannot take now waits, paused, and is claimed on a later call ({@link PostponedClaims}).
 */
final class Claims {

    /** Partitions claimed, and the offsets committed for those the metastore holds any of. */
    record Claimed(Set<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
    }

    private final ExactlyOnceCommitter committer;
    private final OffsetsAhead offsetsAhead;
    private final PostponedClaims postponed;
    private final AssignmentPauses pauses;

    Claims(ExactlyOnceCommitter committer, OffsetsAhead offsetsAhead, PostponedClaims postponed,
            AssignmentPauses pauses) {
        this.committer = committer;
        this.offsetsAhead = offsetsAhead;
        this.postponed = postponed;
        this.pauses = pauses;
    }

    /** Claims newly assigned partitions; null if the claim was put off. */
    Claimed claim(Collection<TopicPartition> assigned) {
        pauses.opened(assigned);
        try {
            return new Claimed(Set.copyOf(assigned), offsetsAhead.check(committer.claim(assigned)));
        } catch (ClaimNotPossibleYetException e) {
            postponed.postpone(assigned, e);
            return null;
        }
    }

    /** Claims the partitions whose claim was put off; null if it is put off again. */
    Claimed claimPostponed() {
        Set<TopicPartition> partitions = postponed.partitions();
        Map<TopicPartition, Long> committed;
        try {
            committed = offsetsAhead.check(committer.claim(partitions));
        } catch (ClaimNotPossibleYetException e) {
            postponed.failedAgain(e);
            return null;
        }
        postponed.claimed();
        return new Claimed(partitions, committed);
    }

    /** Whether a postponed claim is due to be tried again. */
    boolean postponedDue() {
        return postponed.due();
    }

    /** The offsets committed in the metastore for the partitions this task claimed. */
    Map<TopicPartition, Long> committedOffsets() {
        return committer.committedOffsets();
    }

    /** The partitions whose claim waits: their records are not taken. */
    Set<TopicPartition> waiting() {
        return postponed.partitions();
    }

    /** How soon the next try of a postponed claim is due, or -1 if none waits. */
    long msUntilNextTry() {
        return postponed.msUntilNextTry();
    }

    /** How long an outage is waited out before the task fails ({@code hive.metastore.start.wait.ms}). */
    long waitMs() {
        return postponed.waitMs();
    }

    /** The partitions closed: they wait for no claim, and are no longer paused. */
    void closed(Collection<TopicPartition> partitions) {
        postponed.closed(partitions);
        pauses.closed(partitions);
    }
}
