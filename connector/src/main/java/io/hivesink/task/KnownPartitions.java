package io.hivesink.task;

import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.done.TableWatermarks;

/**
 * Every partition of the topics the connector subscribes to, read from the metadata the task's consumer keeps for
 * its fetches (no round trip to the broker on the delivery's path: a blocking metadata read there was the suspect
 * of a task that took nothing for minutes), on its thread, at the task's first delivery and every
 * {@link #EVERY_MS} after: for the watermarks, in
 * which a partition that no task's state holds yet (one just added to a topic, or one whose task has not claimed it
 * yet while the tasks start) holds back the tables it feeds instead of being left out. The first read comes before
 * the task's first commit, whose watermarks it bounds.
 */
final class KnownPartitions {

    static final long EVERY_MS = 30_000;

    private final LogOffsets logs;
    private final Predicate<String> subscribed;
    private final TableWatermarks watermarks;
    private final LongSupplier clock;
    private long nextMs = Long.MIN_VALUE;

    KnownPartitions(LogOffsets logs, Predicate<String> subscribed, TableWatermarks watermarks, LongSupplier clock) {
        this.logs = logs;
        this.subscribed = subscribed;
        this.watermarks = watermarks;
        watermarks.requirePartitionsKnown();
        this.clock = clock;
    }

    /** Reads the partitions again if it is time to; a failed read is tried again at the next call. */
    void refreshIfDue() {
        long now = clock.getAsLong();
        if (now < nextMs) {
            return;
        }
        Set<TopicPartition> all = logs.partitionsOf(subscribed);
        if (all != null) {
            watermarks.partitionsKnown(all);
            nextMs = now + EVERY_MS;
        }
    }
}
