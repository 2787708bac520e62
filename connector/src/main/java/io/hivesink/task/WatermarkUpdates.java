package io.hivesink.task;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.done.TableWatermarks;
import io.hivesink.metrics.TaskMetrics;

/**
 * Brings the tables' watermarks up to date after each commit, on the thread that made it (the commit lane's, while
 * the task takes the next batch): the batch's event times are in its task's state by then. Every task's state is
 * read again at most every {@code fullReadEveryMs} (two metastore calls, however many tasks: with many tasks
 * committing often, each reading all at every commit would load the metastore for little); in between, the task's
 * own state, which it has at hand, updates the last read. A failed read leaves the watermarks as they were until a
 * later one; it never fails the commit.
 */
final class WatermarkUpdates {

    private static final Logger log = LoggerFactory.getLogger(WatermarkUpdates.class);

    /** How often every task's state is read, at most, in a running task. */
    static final long FULL_READ_EVERY_MS = 10_000;

    private final TableWatermarks watermarks;
    private final ExactlyOnceCommitter committer;
    private final LongSupplier clock;
    private final long fullReadEveryMs;
    /** What every task's state said at the last full read, or null before the first. */
    private Map<TopicPartition, Long> lastRead;
    private long lastReadAtMs;
    private boolean failing;
    /** Marks the time partitions the watermarks passed ({@link DoneMarking}). */
    private final Runnable marking;

    WatermarkUpdates(TableWatermarks watermarks, ExactlyOnceCommitter committer, LongSupplier clock,
            long fullReadEveryMs) {
        this(watermarks, committer, clock, fullReadEveryMs, () -> { });
    }

    WatermarkUpdates(TableWatermarks watermarks, ExactlyOnceCommitter committer, LongSupplier clock,
            long fullReadEveryMs, Runnable marking) {
        this.marking = marking;
        this.watermarks = watermarks;
        this.committer = committer;
        this.clock = clock;
        this.fullReadEveryMs = fullReadEveryMs;
    }

    /** The batch is committed: its tables with event times have watermarks from now on, and all are read again. */
    void committed(Batch batch) {
        for (String table : batch.tablesWithEventTimes()) {
            watermarks.track(table);
        }
        refresh();
    }

    /**
     * The partitions stand in the wall clock: the tables they feed by their topic, partitioned by time, have
     * watermarks from now on, whether or not this task has committed a batch to them since it started.
     */
    void feeding(java.util.Collection<TopicPartition> partitions) {
        watermarks.trackFeeding(partitions);
    }

    /** Every task's state is read again, and the watermarks of the tables kept computed from it. */
    void refresh() {
        Set<String> tracked = watermarks.all().keySet();
        if (tracked.isEmpty()) {
            return;
        }
        try {
            long now = clock.getAsLong();
            Map<TopicPartition, Long> landed;
            if (lastRead == null || now - lastReadAtMs >= fullReadEveryMs) {
                landed = committer.landedEventTimes();
                lastRead = landed;
                lastReadAtMs = now;
            } else {
                landed = new HashMap<>(lastRead);
                landed.putAll(committer.ownEventTimes()); // the owner's line is the partition's word
            }
            watermarks.update(landed);
            if (failing) {
                log.info("The watermarks of {} are up to date again", tracked);
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("Could not read the task states to bring the watermarks of {} up to date; they stay as "
                        + "they were until a later commit reads them: {}", tracked, e.toString());
                failing = true;
            }
            return;
        }
        marking.run();
    }

    /** Each table with a watermark has its gauges. */
    void report(TaskMetrics metrics) {
        metrics.tableWatermarks(watermarks.all().keySet(), watermarks::of, watermarks::completeBefore);
    }
}
