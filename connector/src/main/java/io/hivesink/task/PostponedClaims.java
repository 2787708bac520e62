package io.hivesink.task;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.MetastoreConfig;

/**
 * Partitions assigned while they could not be claimed (the metastore or HDFS down, restarting or unreachable).
 * Failing the task in the middle of a rebalance would take it down for good (Connect does not restart a failed
 * task), so they stay paused, their records are not taken, and the task claims them again on later calls, pausing
 * from 1 s doubling to 30 s between tries, for up to {@code hive.metastore.start.wait.ms}; then it fails.
 */
final class PostponedClaims {

    private static final Logger log = LoggerFactory.getLogger(PostponedClaims.class);
    private static final long FIRST_PAUSE_MS = 1_000;
    private static final long MAX_PAUSE_MS = 30_000;

    private final AssignmentPauses pauses;
    private final LongSupplier clock;
    private final long waitMs;
    private final Set<TopicPartition> partitions = new LinkedHashSet<>();
    private long firstFailureMs = -1;
    private long nextTryMs;
    private long pauseMs = FIRST_PAUSE_MS;
    private int tries;

    /** How long an outage is waited out before the task fails ({@code hive.metastore.start.wait.ms}). */
    long waitMs() {
        return waitMs;
    }

    PostponedClaims(AssignmentPauses pauses, LongSupplier clock, long waitMs) {
        this.pauses = pauses;
        this.clock = clock;
        this.waitMs = waitMs;
    }

    /** Claiming {@code assigned} failed: they wait, paused, with any claim already postponed. */
    void postpone(Collection<TopicPartition> assigned, RuntimeException why) {
        partitions.addAll(assigned);
        pauses.pause(AssignmentPauses.Reason.UNCLAIMED, assigned);
        if (firstFailureMs < 0) {
            firstFailureMs = clock.getAsLong();
        }
        tries++;
        nextTryMs = clock.getAsLong() + pauseMs;
        log.warn("Partitions {} cannot be claimed yet (try {}); they stay paused and the task tries again in {} ms, "
                + "for up to {} ms in all ({}): {}", partitions, tries, pauseMs, waitMs,
                MetastoreConfig.METASTORE_START_WAIT_MS, why.getMessage());
        pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
    }

    /** The claim failed again: wait more, or fail the task once the wait is over. */
    void failedAgain(RuntimeException why) {
        if (clock.getAsLong() - firstFailureMs >= waitMs) {
            throw new ConnectException("Task could not claim partitions " + partitions + " for "
                    + (clock.getAsLong() - firstFailureMs) / 1000 + " s (" + MetastoreConfig.METASTORE_START_WAIT_MS
                    + " allows " + waitMs / 1000 + " s): " + why.getMessage(), why);
        }
        postpone(Set.of(), why);
    }

    /** The postponed claim went through: the partitions resume. */
    void claimed() {
        log.info("Claimed partitions {} after {} ms and {} tries", partitions, clock.getAsLong() - firstFailureMs,
                tries + 1);
        pauses.resume(AssignmentPauses.Reason.UNCLAIMED, partitions);
        partitions.clear();
        firstFailureMs = -1;
        pauseMs = FIRST_PAUSE_MS;
        tries = 0;
    }

    void closed(Collection<TopicPartition> closed) {
        partitions.removeAll(closed);
        if (partitions.isEmpty()) {
            firstFailureMs = -1;
            pauseMs = FIRST_PAUSE_MS;
            tries = 0;
        }
    }

    Set<TopicPartition> partitions() {
        return Set.copyOf(partitions);
    }

    boolean isEmpty() {
        return partitions.isEmpty();
    }

    boolean due() {
        return !partitions.isEmpty() && clock.getAsLong() >= nextTryMs;
    }

    /** How soon the next try is due, or -1 if nothing waits. */
    long msUntilNextTry() {
        return partitions.isEmpty() ? -1 : Math.max(0, nextTryMs - clock.getAsLong());
    }
}
