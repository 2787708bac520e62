package io.hivesink.task;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.commit.TaskState;

/**
 * Kafka partitions of this task that have landed everything their logs hold: their committed offset is at their
 * log's end (read from the broker), or, never committed, their log is empty. Once one has been caught up for
 * {@code partition.done.idle.ms}, and again each such period while it stays caught up, the task records the wall
 * clock, read before the logs' ends were, as its event time, in one write of its state for all of them: every record
 * its log held then is committed, so a partition that receives nothing holds no watermark back.
 *
 * <p>Checked on the task's thread between deliveries, at most every {@link #checkEveryMs}, and only while no batch
 * is being committed or held (the task's state is the commit's then). A failed write is tried again at a later
 * check; it never fails the task, unless another instance runs the task now (fencing).
 */
final class IdlePartitions {

    private static final Logger log = LoggerFactory.getLogger(IdlePartitions.class);

    private final long idleMs;
    private final long checkEveryMs;
    private final LogOffsets logs;
    private final ExactlyOnceCommitter committer;
    private final WatermarkUpdates watermarks;
    private final LongSupplier clock;
    /** Per partition caught up at the last check, since when it has been. */
    private final Map<TopicPartition, Long> caughtUpSince = new HashMap<>();
    /** Per partition, when its caught-up time was last recorded. */
    private final Map<TopicPartition, Long> recordedAt = new HashMap<>();
    private long nextCheckMs;

    /** @param idleMs {@code partition.done.idle.ms}; 0: partitions are never counted as caught up */
    IdlePartitions(long idleMs, LogOffsets logs, ExactlyOnceCommitter committer, WatermarkUpdates watermarks,
            LongSupplier clock) {
        this.idleMs = idleMs;
        this.checkEveryMs = Math.max(1_000, Math.min(idleMs / 2, 30_000));
        this.logs = logs;
        this.committer = committer;
        this.watermarks = watermarks;
        this.clock = clock;
        this.nextCheckMs = clock.getAsLong() + checkEveryMs;
    }

    /**
     * Records the caught-up partitions that are due, if a check is due.
     *
     * @param waiting partitions assigned but not taking records (not claimed yet, on probation, taken by another
     *     task): left out
     * @throws TaskFencedException if another instance runs the task now
     */
    void check(Set<TopicPartition> waiting) {
        long now = clock.getAsLong();
        if (idleMs == 0 || now < nextCheckMs) {
            return;
        }
        nextCheckMs = now + checkEveryMs;
        Map<TopicPartition, Long> owned = committer.ownedOffsets();
        owned.keySet().removeAll(waiting);
        caughtUpSince.keySet().retainAll(owned.keySet());
        recordedAt.keySet().retainAll(owned.keySet());
        if (owned.isEmpty()) {
            return;
        }
        Map<TopicPartition, LogOffsets.LogRange> ranges = logs.ranges(owned.keySet());
        Set<TopicPartition> due = new TreeSet<>(TaskState.PARTITION_ORDER);
        owned.forEach((tp, committed) -> {
            LogOffsets.LogRange range = ranges.get(tp);
            long landed = committed == TaskState.PartitionState.NONE && range != null ? range.start() : committed;
            if (range == null || landed < range.end()) {
                caughtUpSince.remove(tp);
                recordedAt.remove(tp);
                return;
            }
            long since = caughtUpSince.computeIfAbsent(tp, t -> now);
            Long last = recordedAt.get(tp);
            if (now - since >= idleMs && (last == null || now - last >= idleMs)) {
                due.add(tp);
            }
        });
        if (due.isEmpty()) {
            return;
        }
        try {
            committer.caughtUp(due, now);
        } catch (TaskFencedException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Could not record that partitions {} have landed everything their logs hold; tried again in {} "
                    + "ms: {}", due, checkEveryMs, e.toString());
            return;
        }
        for (TopicPartition tp : due) {
            if (recordedAt.put(tp, now) == null) {
                log.info("Partition {} has landed everything its log holds for {} ms: the wall clock stands in for "
                        + "its event time while it stays caught up ({}={})", tp, now - caughtUpSince.get(tp),
                        io.hivesink.config.DoneConfig.PARTITION_DONE_IDLE_MS, idleMs);
            }
        }
        watermarks.feeding(due); // tables a task has committed nothing to since it started still close
        watermarks.refresh();
    }
}
