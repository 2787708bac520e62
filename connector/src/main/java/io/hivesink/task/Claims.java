package io.hivesink.task;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.commit.ClaimNotPossibleYetException;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.PartitionsTakenException;

/**
 * Takes ownership of assigned topic-partitions ({@link ExactlyOnceCommitter#claim}) and tells where each resumes: at
 * the offset the metastore committed, checked against what its log still holds ({@link OffsetsAhead}). An assignment
 * the metastore cannot take now waits, paused, and is claimed on a later call ({@link PostponedClaims}); one another
 * task took while Connect still has it assigned here waits, paused, for Connect to close it ({@link TakenPartitions}).
 */
final class Claims {

    /** Partitions claimed, and the offsets committed for those the metastore holds any of. */
    record Claimed(Set<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
    }

    private final ExactlyOnceCommitter committer;
    private final OffsetsAhead offsetsAhead;
    private final PostponedClaims postponed;
    private final TakenPartitions taken;
    private final AssignmentPauses pauses;

    Claims(ExactlyOnceCommitter committer, OffsetsAhead offsetsAhead, PostponedClaims postponed, TakenPartitions taken,
            AssignmentPauses pauses) {
        this.committer = committer;
        this.offsetsAhead = offsetsAhead;
        this.postponed = postponed;
        this.taken = taken;
        this.pauses = pauses;
    }

    /** Claims newly assigned partitions (or ones taken that are still assigned); null if the claim was put off. */
    Claimed claim(Collection<TopicPartition> assigned) {
        taken.forget(assigned);
        pauses.opened(assigned);
        try {
            return new Claimed(Set.copyOf(assigned), offsetsAhead.check(committer.claim(assigned)));
        } catch (ClaimNotPossibleYetException e) {
            postponed.postpone(assigned, e);
            return null;
        } catch (PartitionsTakenException e) {
            // another task claimed some of them before their offsets were moved: the rest are claimed again shortly
            taken.taken(e.partitions());
            Set<TopicPartition> rest = new HashSet<>(assigned);
            rest.removeAll(e.partitions());
            if (!rest.isEmpty()) {
                postponed.postpone(rest, e);
            }
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
        } catch (PartitionsTakenException e) {
            // another task claimed some of them: those wait for Connect to close them, the rest are tried again
            taken.taken(e.partitions());
            postponed.closed(e.partitions());
            pauses.resume(AssignmentPauses.Reason.UNCLAIMED, e.partitions()); // still paused: taken
            if (!postponed.isEmpty()) {
                postponed.postpone(Set.of(), e);
            }
            return null;
        }
        postponed.claimed();
        return new Claimed(partitions, committed);
    }

    /** Whether a postponed claim is due to be tried again. */
    boolean postponedDue() {
        return postponed.due();
    }

    /** Abandoned staged batches a claim kept while young go once old enough ({@code AbandonedStaging}). */
    void sweepAbandoned() {
        committer.sweepAbandoned();
    }

    /** The offsets committed in the metastore for the partitions this task claimed. */
    Map<TopicPartition, Long> committedOffsets() {
        return committer.committedOffsets();
    }

    /** The partitions whose claim waits, or that another task took: their records are not taken. */
    Set<TopicPartition> waiting() {
        if (taken.partitions().isEmpty()) {
            return postponed.partitions();
        }
        Set<TopicPartition> waiting = new HashSet<>(postponed.partitions());
        waiting.addAll(taken.partitions());
        return waiting;
    }

    /** Taken partitions still assigned long after, to be claimed again ({@link TakenPartitions}). */
    List<TopicPartition> dueToClaimAgain() {
        return taken.dueToClaimAgain();
    }

    /** How soon the next try of a postponed claim, or of a taken partition, is due; -1 if none waits. */
    long msUntilNextTry() {
        return Least.of(postponed.msUntilNextTry(), taken.msUntilDue());
    }

    /** How long an outage is waited out before the task fails ({@code hive.metastore.start.wait.ms}). */
    long waitMs() {
        return postponed.waitMs();
    }

    /** The partitions closed: they wait for no claim, and are no longer paused. */
    void closed(Collection<TopicPartition> partitions) {
        postponed.closed(partitions);
        taken.closed(partitions);
        pauses.closed(partitions);
    }
}
