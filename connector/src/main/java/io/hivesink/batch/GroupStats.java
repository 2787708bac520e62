package io.hivesink.batch;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.route.Partitioner;

/**
 * What the records of one file group are, for the batch ledger: per Kafka partition the first and last offset, and
 * the range of record timestamps. Built per chunk on an encoding thread, then merged in record order.
 */
public final class GroupStats {

    /** Offsets of one Kafka partition's records in a group, and the greatest event time among them. */
    public static final class OffsetRange {
        private long first;
        private long last;
        private long count;
        private long maxEventTime = Partitioner.NO_EVENT_TIME;

        OffsetRange(long first) {
            this.first = first;
            this.last = first;
        }

        public long first() {
            return first;
        }

        public long last() {
            return last;
        }

        public long count() {
            return count;
        }

        /** The greatest event time of these records, {@link Partitioner#NO_EVENT_TIME} if none had one. */
        public long maxEventTime() {
            return maxEventTime;
        }
    }

    private final Map<TopicPartition, OffsetRange> offsets = new LinkedHashMap<>();
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private String lastTopic;
    private int lastPartition;
    private OffsetRange lastRange;
    /** Records landed in a time partition already marked done, as the commit found: all of them, or none. */
    private long lateRecords;

    void add(String topic, int partition, long offset, Long timestamp, long eventTime) {
        OffsetRange range = lastRange;
        if (range == null || lastPartition != partition || !topic.equals(lastTopic)) {
            range = offsets.computeIfAbsent(new TopicPartition(topic, partition), tp -> new OffsetRange(offset));
            lastTopic = topic;
            lastPartition = partition;
            lastRange = range;
        }
        range.last = offset;
        range.count++;
        range.maxEventTime = Math.max(range.maxEventTime, eventTime);
        if (timestamp != null) {
            long ts = timestamp;
            minTimestamp = Math.min(minTimestamp, ts);
            maxTimestamp = Math.max(maxTimestamp, ts);
        }
    }

    /**
     * The group's records its commit lands in a time partition already marked done: all of them if it is marked as
     * its batch commits, else 0. Set again if the commit is tried again.
     */
    public void landedLate(long records) {
        lateRecords = records;
    }

    /** Records of the group its commit found late ({@link #landedLate}); 0 before. */
    public long lateRecords() {
        return lateRecords;
    }

    /** Adds the stats of records that came after this group's records so far. */
    void append(GroupStats later) {
        for (Map.Entry<TopicPartition, OffsetRange> e : later.offsets.entrySet()) {
            OffsetRange mine = offsets.get(e.getKey());
            OffsetRange theirs = e.getValue();
            if (mine == null) {
                OffsetRange copy = new OffsetRange(theirs.first);
                copy.last = theirs.last;
                copy.count = theirs.count;
                copy.maxEventTime = theirs.maxEventTime;
                offsets.put(e.getKey(), copy);
            } else {
                mine.last = theirs.last;
                mine.count += theirs.count;
                mine.maxEventTime = Math.max(mine.maxEventTime, theirs.maxEventTime);
            }
        }
        minTimestamp = Math.min(minTimestamp, later.minTimestamp);
        maxTimestamp = Math.max(maxTimestamp, later.maxTimestamp);
    }

    public Map<TopicPartition, OffsetRange> offsets() {
        return Collections.unmodifiableMap(offsets);
    }

    /** Smallest record timestamp, or null if no record had one. */
    public Long minTimestamp() {
        return minTimestamp == Long.MAX_VALUE ? null : minTimestamp;
    }

    public Long maxTimestamp() {
        return maxTimestamp == Long.MIN_VALUE ? null : maxTimestamp;
    }
}
