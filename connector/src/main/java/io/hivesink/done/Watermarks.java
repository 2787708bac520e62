package io.hivesink.done;

import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;

/**
 * A table's watermark: the event time before which no record is expected any more. Each Kafka partition that feeds
 * the table has landed up to the greatest event time committed of it; its later records may be older than that by
 * the allowed lateness at most. So the partition vouches for (landed minus lateness), and the table for the least
 * of these over its partitions. A feeding partition that has landed no event time yet vouches for nothing, and the
 * table has no watermark until it does.
 */
public final class Watermarks {

    /** No watermark: a feeding partition has no event time yet, or nothing feeds the table. */
    public static final long NONE = Long.MIN_VALUE;

    private Watermarks() {
    }

    /**
     * The watermark of a table.
     *
     * @param landed     per Kafka partition known to the connector, the greatest event time committed of it, or
     *                   {@link #NONE}
     * @param feeds      which of those partitions feed the table
     * @param latenessMs how far behind its greatest event time a partition's later records may be
     * @return the watermark in epoch milliseconds, or {@link #NONE}
     */
    public static long of(Map<TopicPartition, Long> landed, Predicate<TopicPartition> feeds, long latenessMs) {
        long least = Long.MAX_VALUE;
        for (Map.Entry<TopicPartition, Long> e : landed.entrySet()) {
            if (!feeds.test(e.getKey())) {
                continue;
            }
            long time = e.getValue();
            if (time == NONE) {
                return NONE;
            }
            least = Math.min(least, time);
        }
        return least == Long.MAX_VALUE || least < Long.MIN_VALUE + latenessMs + 1 ? NONE : least - latenessMs;
    }
}
