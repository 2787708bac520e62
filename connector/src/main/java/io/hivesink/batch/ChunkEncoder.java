package io.hivesink.batch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.ByteSink;
import io.hivesink.route.PartitionValues;
import io.hivesink.route.TableRouter;

/**
 * Routes, partitions and encodes a run of records on an encoding thread. Thread-safe: the file groups of the open
 * batch are shared by every chunk, so records of one group from different chunks end up in one file.
 */
final class ChunkEncoder {

    private static final ThreadLocal<ByteSink> SINK = ThreadLocal.withInitial(() -> new ByteSink(1 << 20));

    private final TableRouter router;
    private final TableLayouts layouts;
    private final boolean rejectBadRecords;
    private final Map<GroupKey, RecordGroup> groups = new ConcurrentHashMap<>();

    /**
     * @param rejectBadRecords true: a record that cannot land is set aside and the rest go on; false: it ends the
     *     chunk with its error
     */
    ChunkEncoder(TableRouter router, TableLayouts layouts, boolean rejectBadRecords) {
        this.router = router;
        this.layouts = layouts;
        this.rejectBadRecords = rejectBadRecords;
    }

    /**
     * @param tables the table of each record as the task thread routed it, or null where it could not (this
     *     encoder then routes the record again, and so reports the error with it)
     */
    EncodedChunk encode(List<SinkRecord> records, List<String> tables) {
        ByteSink sink = SINK.get();
        sink.reset();
        int[] ends = new int[records.size()];
        RecordGroup[] groupOf = new RecordGroup[records.size()];
        String table = null;
        Schema lastSchema = null;
        TableLayout layout = null;
        int count = 0;
        Map<RecordGroup, GroupStats> stats = new IdentityHashMap<>();
        List<RejectedRecord> rejected = List.of();
        RecordGroup lastGroup = null;
        GroupStats lastStats = null;
        RuntimeException failure = null;
        for (int i = 0; i < records.size(); i++) {
            SinkRecord record = records.get(i);
            int mark = sink.size();
            try {
                Struct value = requireStruct(record);
                table = tables.get(i);
                if (table == null) {
                    table = router.tableFor(record, value);
                }
                if (layout == null || value.schema() != lastSchema || !table.equals(layout.table())) {
                    layout = layouts.layoutFor(table, value.schema());
                    lastSchema = value.schema();
                }
                layout.requireUsable();
                PartitionValues partition = layout.partitioner().partitionOf(record, value);
                TableLayout groupLayout = layout;
                RecordGroup group = groups.computeIfAbsent(new GroupKey(layout, partition),
                        k -> new RecordGroup(groupLayout, partition, null, null));
                layout.encoder().encode(value, sink);
                groupOf[count] = group;
                if (group != lastGroup) {
                    lastGroup = group;
                    lastStats = stats.computeIfAbsent(lastGroup, g -> new GroupStats());
                }
                lastStats.add(record.topic(), record.kafkaPartition(), record.kafkaOffset(), record.timestamp());
            } catch (RuntimeException e) {
                sink.truncate(mark);
                if (e instanceof ConnectException && !(e instanceof DataException)) {
                    failure = e; // not the record's fault (the metastore failed, say): the task must stop
                    break;
                }
                DataException error = new DataException(describe(record) + ": "
                        + (e instanceof DataException ? e.getMessage() : e.toString()), e);
                if (!rejectBadRecords) {
                    failure = error;
                    break;
                }
                if (rejected.isEmpty()) {
                    rejected = new ArrayList<>();
                }
                rejected.add(new RejectedRecord(record, error));
                continue;
            }
            ends[count++] = sink.size();
        }
        byte[] data = Arrays.copyOf(sink.array(), sink.size());
        if (sink.array().length > (4 << 20)) {
            SINK.remove(); // do not keep a buffer grown by a rare huge chunk
        }
        return new EncodedChunk(data, count == ends.length ? ends : Arrays.copyOf(ends, count),
                count == groupOf.length ? groupOf : Arrays.copyOf(groupOf, count), count, stats, rejected, failure);
    }

    /** Forgets the file groups of a closed or dropped batch. */
    void reset() {
        groups.clear();
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
