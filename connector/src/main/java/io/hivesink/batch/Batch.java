package io.hivesink.batch;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.route.Partitioner;

/**
 * A closed batch: its record groups, the records it rejected (they go to the errant-record reporter, not to a
 * table) and, per Kafka partition, the stretch of offsets it covers: from where the batch before it ended (or the
 * partition resumed) to the offset after its last record. Committing a batch commits its end offsets, and only if
 * each stretch starts at the offset committed before it, or, in a partition never committed, where the task started
 * it ({@code startOffsets}: the first offset it took since the partition was assigned). {@code records} counts the
 * records that land in tables, {@code skipped} the ones taken but stored nowhere by design (ignored tombstones).
 * {@code chunkBytes} counts the encoded chunks the batch keeps because groups read their datums from them (all of
 * them, unless blocks are compressed early; then those a columnar table's records are in).
 */
public record Batch(String id, List<RecordGroup> groups, List<RejectedRecord> rejected,
        Map<TopicPartition, Long> fromOffsets, Map<TopicPartition, Long> nextOffsets,
        Map<TopicPartition, Long> startOffsets, long records, long bytes, long skipped, long chunkBytes) {

    public Batch {
        groups = List.copyOf(groups);
        rejected = List.copyOf(rejected);
        fromOffsets = Map.copyOf(fromOffsets);
        nextOffsets = Map.copyOf(nextOffsets);
        startOffsets = Map.copyOf(startOffsets);
    }

    /**
     * What the batch holds in the heap now: the chunks it keeps, and the blocks compressed early (less than their
     * records' encoded bytes once compressed).
     */
    public long heldBytes() {
        long held = chunkBytes;
        for (RecordGroup group : groups) {
            if (!(group.datums() instanceof GroupDatums)) {
                held += group.datums().heldBytes();
            }
        }
        return held;
    }

    /** Records its commit landed in time partitions already marked done (0 until its ledger rows are written). */
    public long lateRecords() {
        long late = 0;
        for (RecordGroup group : groups) {
            late += group.stats().lateRecords();
        }
        return late;
    }

    /** The batch is dropped uncommitted: its files' blocks not compressed yet are not compressed. */
    public void discard() {
        for (RecordGroup group : groups) {
            group.datums().discard();
        }
    }

    /**
     * Per Kafka partition, the greatest event time among its records in this batch's tables (a partitioner by time
     * gives them); a partition none of whose records had one is absent.
     */
    public Map<TopicPartition, Long> eventTimes() {
        Map<TopicPartition, Long> times = new HashMap<>();
        for (RecordGroup group : groups) {
            group.stats().offsets().forEach((tp, range) -> {
                if (range.maxEventTime() != Partitioner.NO_EVENT_TIME) {
                    times.merge(tp, range.maxEventTime(), Math::max);
                }
            });
        }
        return times;
    }

    /** The tables some of whose records had an event time (a partitioner by time gave it). */
    public Set<String> tablesWithEventTimes() {
        Set<String> tables = new LinkedHashSet<>();
        for (RecordGroup group : groups) {
            if (group.stats().offsets().values().stream()
                    .anyMatch(range -> range.maxEventTime() != Partitioner.NO_EVENT_TIME)) {
                tables.add(group.table());
            }
        }
        return tables;
    }

    public Set<String> tables() {
        Set<String> tables = new LinkedHashSet<>();
        for (RecordGroup group : groups) {
            tables.add(group.table());
        }
        return tables;
    }
}
