package io.hivesink.task;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.ClaimNotPossibleYetException;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.PartitionsTakenException;
import io.hivesink.commit.Recheck;
import io.hivesink.commit.TaskState;

/**
 * Takes ownership of assigned topic-partitions ({@link ExactlyOnceCommitter#claim}) and tells where each resumes: at
 * the offset the metastore committed, checked against what its log still holds ({@link OffsetsAhead}). An assignment
 * the metastore cannot take now waits, paused, and is claimed on a later call ({@link PostponedClaims}); one another
 * task took while Connect still has it assigned here waits, paused, for Connect to close it ({@link TakenPartitions});
 * one claimed from a state whose lock was broken lately waits, paused, until its claim is checked again
 * ({@link Probation}).
 */
final class Claims {

    private static final Logger log = LoggerFactory.getLogger(Claims.class);

    /** Partitions claimed, and the offsets committed for those the metastore holds any of. */
    record Claimed(Set<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
    }

    private final ExactlyOnceCommitter committer;
    private final OffsetsAhead offsetsAhead;
    private final PostponedClaims postponed;
    private final TakenPartitions taken;
    private final AssignmentPauses pauses;
    private final Probation probation;

    /**
     * Partitions on probation checked again: those whose records are taken from now on, at their committed offsets,
     * and those to claim again.
     */
    record Rechecked(Claimed passed, List<TopicPartition> claimAgain) {
    }

    Claims(ExactlyOnceCommitter committer, OffsetsAhead offsetsAhead, PostponedClaims postponed, TakenPartitions taken,
            AssignmentPauses pauses, Probation probation) {
        this.committer = committer;
        this.probation = probation;
        this.offsetsAhead = offsetsAhead;
        this.postponed = postponed;
        this.taken = taken;
        this.pauses = pauses;
    }

    /** Claims newly assigned partitions (or ones taken that are still assigned); null if the claim was put off. */
    Claimed claim(Collection<TopicPartition> assigned) {
        taken.forget(assigned);
        probation.ended(assigned);
        pauses.opened(assigned);
        try {
            Map<TopicPartition, Long> committed = offsetsAhead.check(committer.claim(assigned));
            probation.start(committer.probation());
            return new Claimed(Set.copyOf(assigned), committed);
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
            probation.start(committer.probation());
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

    /**
     * Checks again the claims whose probation is over ({@link Probation}): passed, their records are taken; undone,
     * they are to be claimed again; lost to another task, they wait for Connect to close them. Null if none was due,
     * or the check could not be made (tried again later).
     *
     * @throws io.hivesink.commit.TaskFencedException if another instance of this task runs it now
     */
    Rechecked recheckDue() {
        List<TopicPartition> due = probation.due();
        if (due.isEmpty()) {
            return null;
        }
        Recheck recheck;
        try {
            recheck = committer.recheck(due);
        } catch (RetriableException e) {
            probation.checkFailed(due, e);
            return null;
        }
        taken.taken(recheck.lost()); // before the probation's pause is lifted: they stay paused
        probation.ended(due);
        if (!recheck.passed().isEmpty()) {
            log.info("The claim of {} held through its probation: their records are taken from {}",
                    recheck.passed(), recheck.committed());
        }
        if (!recheck.undone().isEmpty()) {
            log.warn("The claim of {} was undone during its probation: a write sent under a lock broken since "
                    + "landed after it. Claiming them again, which rolls that write's batch forward; none of their "
                    + "records was taken, so none lands twice", recheck.undone());
        }
        return new Rechecked(new Claimed(recheck.passed(), recheck.committed()),
                recheck.undone().stream().sorted(TaskState.PARTITION_ORDER).toList());
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
        if (taken.partitions().isEmpty() && probation.partitions().isEmpty()) {
            return postponed.partitions();
        }
        Set<TopicPartition> waiting = new HashSet<>(postponed.partitions());
        waiting.addAll(taken.partitions());
        waiting.addAll(probation.partitions());
        return waiting;
    }

    /** Taken partitions still assigned long after, to be claimed again ({@link TakenPartitions}). */
    List<TopicPartition> dueToClaimAgain() {
        return taken.dueToClaimAgain();
    }

    /** How soon the next try of a postponed claim, or of a taken partition, is due; -1 if none waits. */
    long msUntilNextTry() {
        return Least.of(Least.of(postponed.msUntilNextTry(), taken.msUntilDue()), probation.msUntilDue());
    }

    /** How long an outage is waited out before the task fails ({@code hive.metastore.start.wait.ms}). */
    long waitMs() {
        return postponed.waitMs();
    }

    /** The partitions closed: they wait for no claim, and are no longer paused. */
    void closed(Collection<TopicPartition> partitions) {
        postponed.closed(partitions);
        taken.closed(partitions);
        probation.closed(partitions);
        pauses.closed(partitions);
    }
}
