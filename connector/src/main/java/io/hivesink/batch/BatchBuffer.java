package io.hivesink.batch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.EncodedDatums;
import io.hivesink.route.PartitionValues;
import io.hivesink.route.TableRouter;

/**
 * The open batch: records routed to their table and partition and held as encoded Avro, grouped per file. A record
 * at an offset already buffered (a redelivery after a retriable failure) is skipped, so it lands once.
 */
public final class BatchBuffer {

    private final TableRouter router;
    private final TableLayouts layouts;
    private final String batchIdPrefix;
    private final Map<GroupKey, RecordGroup> groups = new LinkedHashMap<>();
    private final Map<TopicPartition, Long> nextOffsets = new HashMap<>();
    private final Map<TopicPartition, Long> batchNextOffsets = new HashMap<>();
    private final Map<TopicPartition, Long> batchFirstOffsets = new HashMap<>();
    private long batchSequence;
    private long records;
    private long bytes;
    private long openedAtMs;

    public BatchBuffer(TableRouter router, TableLayouts layouts, String batchIdPrefix) {
        this.router = router;
        this.layouts = layouts;
        this.batchIdPrefix = batchIdPrefix;
    }

    /**
     * Routes, partitions and encodes one record into the open batch.
     *
     * @return false if the record was already buffered or committed and was skipped
     * @throws DataException naming the record (topic, partition, offset) if it cannot be written
     */
    public boolean add(SinkRecord record, long nowMs) {
        TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
        Long expected = nextOffsets.get(tp);
        if (expected != null && record.kafkaOffset() < expected) {
            return false;
        }
        RecordGroup group;
        try {
            Struct value = requireStruct(record);
            TableLayout layout = layouts.layoutFor(router.tableFor(record.topic()), value.schema());
            PartitionValues partition = layout.partitioner().partitionOf(value);
            group = groups.computeIfAbsent(new GroupKey(layout, partition),
                    k -> new RecordGroup(layout, partition, new EncodedDatums()));
            long before = group.datums().bytes();
            layout.encoder().encodeInto(value, group.datums());
            bytes += group.datums().bytes() - before;
        } catch (RuntimeException e) {
            throw new DataException(describe(record) + ": " + e.getMessage(), e);
        }
        if (records == 0) {
            openedAtMs = nowMs;
        }
        records++;
        nextOffsets.put(tp, record.kafkaOffset() + 1);
        batchNextOffsets.put(tp, record.kafkaOffset() + 1);
        batchFirstOffsets.putIfAbsent(tp, record.kafkaOffset());
        return true;
    }

    private static Struct requireStruct(SinkRecord record) {
        if (record.value() == null) {
            throw new DataException("the record has a null value (a tombstone). Tombstones cannot be stored in a "
                    + "Hive table; drop them before the sink, for example with the Filter transform and the "
                    + "RecordIsTombstone predicate.");
        }
        Schema schema = record.valueSchema();
        if (schema == null) {
            throw new DataException("the record value has no schema (schemaless data). Use a converter that "
                    + "carries schemas: JsonConverter with value.converter.schemas.enable=true, or an Avro "
                    + "converter.");
        }
        if (!(record.value() instanceof Struct struct)) {
            throw new DataException("the record value is a " + schema.type() + ", not a Struct. Each record must be "
                    + "a structure whose fields become table columns; wrap primitives with the HoistField "
                    + "transform.");
        }
        return struct;
    }

    static String describe(SinkRecord record) {
        return "Record topic=" + record.topic() + " partition=" + record.kafkaPartition() + " offset="
                + record.kafkaOffset();
    }

    public boolean isEmpty() {
        return records == 0;
    }

    public long recordCount() {
        return records;
    }

    public long byteCount() {
        return bytes;
    }

    public long openedAtMs() {
        return openedAtMs;
    }

    /** Closes the open batch and starts an empty one. */
    public Batch drain() {
        String id = batchIdPrefix + "-" + (++batchSequence);
        java.util.List<RecordGroup> nonEmpty = new ArrayList<>();
        for (RecordGroup group : groups.values()) {
            if (group.datums().count() > 0) {
                nonEmpty.add(group);
            }
        }
        Batch batch = new Batch(id, nonEmpty, batchNextOffsets, records, bytes);
        reset();
        return batch;
    }

    private void reset() {
        groups.clear();
        batchNextOffsets.clear();
        batchFirstOffsets.clear();
        records = 0;
        bytes = 0;
    }

    /**
     * Drops the open batch. Its partitions are forgotten, so records re-read from their last committed offset are
     * accepted again.
     *
     * @return per partition that had records in the dropped batch, the offset of its first dropped record
     */
    public Map<TopicPartition, Long> discard() {
        Map<TopicPartition, Long> dropped = new HashMap<>(batchFirstOffsets);
        reset();
        forget(dropped.keySet());
        return dropped;
    }

    /** Forgets where the given partitions stood (they were revoked or rewound). */
    public void forget(java.util.Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            nextOffsets.remove(tp);
        }
    }

    private record GroupKey(TableLayout layout, PartitionValues partition) {
        @Override
        public boolean equals(Object o) {
            return o instanceof GroupKey other && layout == other.layout && partition.equals(other.partition);
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(layout) + Objects.hashCode(partition);
        }
    }
}
