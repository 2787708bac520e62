package io.hivesink.batch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.ByteSink;
import io.hivesink.confluent.FramedDatum;
import io.hivesink.input.RecordInput;
import io.hivesink.route.TableRouter;
import io.hivesink.table.PartitionValues;

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
     * @param values what the task thread made of each record's value ({@link io.hivesink.input.RecordInput}): a
     *     Struct, a {@link FramedDatum}, or the DataException that says why the record cannot be stored
     */
    @SuppressWarnings("ReferenceEquality") // the last group's stats are reused while the same group repeats
    EncodedChunk encode(List<SinkRecord> records, List<String> tables, List<Object> values) {
        ByteSink sink = SINK.get();
        sink.reset();
        int[] ends = new int[records.size()];
        RecordGroup[] groupOf = new RecordGroup[records.size()];
        String table = null;
        Object lastSchema = null;
        TableLayout layout = null;
        int count = 0;
        IdentityHashMap<RecordGroup, GroupStats> stats = new IdentityHashMap<>();
        List<RejectedRecord> rejected = List.of();
        RecordGroup lastGroup = null;
        GroupStats lastStats = null;
        RuntimeException failure = null;
        for (int i = 0; i < records.size(); i++) {
            SinkRecord record = records.get(i);
            Object input = values.get(i);
            int mark = sink.size();
            try {
                if (input instanceof DataException why) {
                    throw why;
                }
                FramedDatum datum = input instanceof FramedDatum framed ? framed : null;
                Struct value = datum == null ? (Struct) input : null;
                table = tables.get(i);
                if (table == null) {
                    table = router.tableFor(record, datum == null ? value : datum.routeFields());
                }
                Object schema = datum == null ? value.schema() : datum.writer();
                if (layout == null || schema != lastSchema || !table.equals(layout.table())) {
                    layout = datum == null ? layouts.layoutFor(table, value.schema())
                            : layouts.passthroughLayoutFor(table, datum.writer());
                    lastSchema = schema;
                }
                layout.requireUsable();
                if (datum != null) {
                    // reads the partition fields and proves the whole datum sound before its bytes are copied
                    value = layout.datumFields().read(datum.value(), datum.frame().offset(), datum.frame().length());
                }
                PartitionValues partition = layout.partitioner().partitionOf(record, value);
                TableLayout groupLayout = layout;
                RecordGroup group = groups.computeIfAbsent(new GroupKey(layout, partition),
                        k -> new RecordGroup(groupLayout, partition, null, null));
                if (datum == null) {
                    layout.encoder().encode(value, sink);
                } else {
                    sink.writeFixed(datum.value(), datum.frame().offset(), datum.frame().length());
                }
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
                DataException error = new DataException(describe(record, input) + ": "
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

    static String describe(SinkRecord record, Object input) {
        return RecordInput.describe(record)
                + (input instanceof FramedDatum datum ? " schema id=" + datum.schemaId() : "");
    }

    private record GroupKey(TableLayout layout, PartitionValues partition) {
        @Override
        @SuppressWarnings("ReferenceEquality") // a layout is one instance per table and schema, compared by identity
        public boolean equals(Object o) {
            return o instanceof GroupKey other && layout == other.layout && partition.equals(other.partition);
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(layout) + Objects.hashCode(partition);
        }
    }
}
