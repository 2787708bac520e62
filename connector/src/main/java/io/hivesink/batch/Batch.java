package io.hivesink.batch;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * A closed batch: its record groups, the records it rejected (they go to the errant-record reporter, not to a
 * table) and, per Kafka partition, the offset after its last record. Committing a batch commits those offsets.
 * {@code records} counts the records that land in tables.
 */
public record Batch(String id, List<RecordGroup> groups, List<RejectedRecord> rejected,
        Map<TopicPartition, Long> nextOffsets, long records, long bytes) {

    public Batch {
        groups = List.copyOf(groups);
        rejected = List.copyOf(rejected);
        nextOffsets = Map.copyOf(nextOffsets);
    }

    public Set<String> tables() {
        Set<String> tables = new LinkedHashSet<>();
        for (RecordGroup group : groups) {
            tables.add(group.table());
        }
        return tables;
    }
}
