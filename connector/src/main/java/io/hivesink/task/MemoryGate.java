package io.hivesink.task;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.fs.StorageUnavailableException;
import io.hivesink.metastore.MetastoreException;

/**
 * Keeps one task inside the worker's {@link MemoryBudget}: it tells the budget what the task's batches hold, says
 * when the task should close its open batch early to give memory back, and otherwise pauses the task's partitions
 * while the budget is full and resumes them once it has room. A task held back asks Connect to call it again soon
 * ({@link #RECHECK_MS}), records or not, to look again; so does, less often, a task with an open batch
 * ({@link #HOLDER_RECHECK_MS}): the task holding the most may have no more records coming, and only a call lets it
 * see that the budget filled up and give its memory back.
 */
final class MemoryGate implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MemoryGate.class);

    /** How soon a task held back looks at the budget again. */
    static final long RECHECK_MS = 250;
    /** How soon a task holding an open batch looks at the budget again, records or not. */
    static final long HOLDER_RECHECK_MS = 1_000;
    /**
     * How long a task that cannot commit may hold its batches while the budget is full (and others are held back)
     * before it drops them, to read their records again once it can commit.
     */
    static final long STUCK_DROP_MS = 30_000;

    private final MemoryBudget.Share share;
    private final AssignmentPauses pauses;
    private final LongSupplier clock;
    private final String task;
    private long heldBackSinceMs = -1;
    private long timesHeldBack;
    private long earlyCloses;
    private long commitsFailingSinceMs = -1;

    MemoryGate(MemoryBudget.Share share, AssignmentPauses pauses, LongSupplier clock, String task) {
        this.share = share;
        this.pauses = pauses;
        this.clock = clock;
        this.task = task;
    }

    /** Tells the budget what the task's batches hold now. */
    void holds(long heldBytes) {
        share.hold(heldBytes);
    }

    /**
     * Tells the budget what the task's batches hold now.
     *
     * @return true if the task should close its open batch now: the budget is full and this task holds the most, or
     *     at least the average of what those that hold anything hold
     */
    boolean shouldRelease(long heldBytes) {
        share.hold(heldBytes);
        return heldBytes > 0 && share.shouldRelease();
    }

    /**
     * A commit failed, or the open batch could not close (an outage): the task cannot give memory back by committing
     * for now.
     */
    void commitFailed() {
        if (commitsFailingSinceMs < 0) {
            commitsFailingSinceMs = clock.getAsLong();
        }
        share.canCommit(false);
    }

    /**
     * A call failed retriably: if the metastore or the FileSystem failed it (a held commit, or the open batch's
     * admission), not reading records (a schema registry), the open batch cannot close for now.
     */
    void callFailed(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof MetastoreException || cause instanceof StorageUnavailableException
                    || cause instanceof java.io.IOException) {
                commitFailed();
                return;
            }
        }
    }

    /** A commit went through, or a delivery was taken with nothing held failing. */
    void committed() {
        commitsFailingSinceMs = -1;
        share.canCommit(true);
    }

    /**
     * Whether the task should drop its batches: its commits have failed for {@link #STUCK_DROP_MS} while it holds
     * memory of a full budget, which its commits cannot give back.
     *
     * @return why, for the log; null if it should not
     */
    String stuckReason() {
        if (commitsFailingSinceMs < 0 || share.held() == 0 || !share.full()) {
            return null;
        }
        long failingMs = clock.getAsLong() - commitsFailingSinceMs;
        return failingMs < STUCK_DROP_MS ? null : "its commits have failed for " + failingMs / 1000 + " s while it "
                + "holds " + MemoryBudget.mib(share.held()) + " of the worker's full memory budget ("
                + share.budget().describe() + ")";
    }

    /** Why the open batch closes early, for the log; counts the early close. */
    String releaseReason() {
        earlyCloses++;
        return "the worker's hive-sink memory budget is full (" + share.budget().describe() + "; this task "
                + MemoryBudget.mib(share.held()) + ")";
    }

    /**
     * After a delivery: pauses the task's partitions while the budget is full, resumes them once it has room.
     *
     * @return how soon to look again (ms): soon while the task is held back, less soon while it holds memory; or -1
     */
    long settle() {
        long lookAgain = holdsBack();
        return lookAgain < 0 && share.held() > 0 ? HOLDER_RECHECK_MS : lookAgain;
    }

    private long holdsBack() {
        if (heldBackSinceMs < 0) {
            if (!share.full()) {
                return -1;
            }
            heldBackSinceMs = clock.getAsLong();
            timesHeldBack++;
            Set<TopicPartition> assigned = pauses.assignment();
            pauses.pause(AssignmentPauses.Reason.MEMORY, assigned);
            log.info("Task {} holds back its partitions {}: the worker's hive-sink memory budget is full ({}), and "
                    + "the tasks holding the most are committing their batches. It takes records again once the "
                    + "budget is below {}% (memory.budget.bytes sets it)", task, assigned, share.budget().describe(),
                    Math.round(100 * MemoryBudget.RESUME_BELOW));
            return RECHECK_MS;
        }
        if (!share.hasRoom()) {
            Set<TopicPartition> newlyAssigned = new HashSet<>(pauses.assignment());
            newlyAssigned.removeAll(pauses.pausedFor(AssignmentPauses.Reason.MEMORY));
            pauses.pause(AssignmentPauses.Reason.MEMORY, newlyAssigned);
            return RECHECK_MS;
        }
        pauses.resume(AssignmentPauses.Reason.MEMORY, pauses.pausedFor(AssignmentPauses.Reason.MEMORY));
        log.info("Task {} takes records again after {} ms held back: the memory budget has room ({})", task,
                clock.getAsLong() - heldBackSinceMs, share.budget().describe());
        heldBackSinceMs = -1;
        return -1;
    }

    /** Partitions were assigned: while the task is held back, they are paused too. */
    void opened(Collection<TopicPartition> partitions) {
        if (heldBackSinceMs >= 0) {
            pauses.pause(AssignmentPauses.Reason.MEMORY, partitions);
        }
    }

    boolean heldBack() {
        return heldBackSinceMs >= 0;
    }

    /** The worker's budget for hive-sink batches, and what all its tasks' batches hold of it now. */
    MemoryBudget budget() {
        return share.budget();
    }

    long timesHeldBack() {
        return timesHeldBack;
    }

    long earlyCloses() {
        return earlyCloses;
    }

    /** Gives the task's share back: its batches hold nothing any more. */
    @Override
    public void close() {
        share.close();
    }
}
