package io.hivesink.batch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.encode.ByteSink;
import io.hivesink.config.DoneConfig;
import io.hivesink.input.FramedDatum;
import io.hivesink.input.RecordValue;
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
    private final LateCheck lateCheck;
    private final Map<GroupKey, RecordGroup> groups = new ConcurrentHashMap<>();

    /**
     * @param rejectBadRecords true: a record that cannot land is set aside and the rest go on; false: it ends the
     *     chunk with its error
     * @param lateCheck tells records of time partitions already marked done, and what becomes of them
     */
    ChunkEncoder(TableRouter router, TableLayouts layouts, boolean rejectBadRecords, LateCheck lateCheck) {
        this.router = router;
        this.layouts = layouts;
        this.rejectBadRecords = rejectBadRecords;
        this.lateCheck = lateCheck;
    }

    @SuppressWarnings("ReferenceEquality") // the last group's stats are reused while the same group repeats
    EncodedChunk encode(List<TakenRecord> records) {
        ByteSink sink = SINK.get();
        sink.reset();
        RecordWriter writer = new RecordWriter(sink);
        int[] ends = new int[records.size()];
        RecordGroup[] groupOf = new RecordGroup[records.size()];
        int count = 0;
        IdentityHashMap<RecordGroup, GroupStats> stats = new IdentityHashMap<>();
        List<RejectedRecord> rejected = List.of();
        RecordGroup lastGroup = null;
        GroupStats lastStats = null;
        RecordGroup lateGroup = null;
        LateCheck.Late late = null;
        RuntimeException failure = null;
        for (TakenRecord taken : records) {
            SinkRecord record = taken.record();
            int mark = sink.size();
            RecordGroup group;
            try {
                writer.record = record;
                writer.table = taken.table() != null ? taken.table()
                        : router.tableFor(record, taken.value().routeFields());
                group = taken.value().accept(writer);
            } catch (RuntimeException e) {
                sink.truncate(mark);
                if (e instanceof ConnectException && !(e instanceof DataException)) {
                    failure = e; // not the record's fault (the metastore failed, say): the task must stop
                    break;
                }
                DataException error = new DataException(taken.value().describe(record) + ": "
                        + (e instanceof DataException ? e.getMessage() : e.toString()), e);
                if (!rejectBadRecords) {
                    failure = error;
                    break;
                }
                rejected = withRejected(rejected, record, error);
                continue;
            }
            if (group != lateGroup) {
                lateGroup = group;
                late = lateCheck.of(group.table(), group.partition());
            }
            if (late != null && late.policy() != DoneConfig.LatePolicy.LAND) {
                sink.truncate(mark);
                DataException error = lateError(taken, group, late);
                if (late.policy() == DoneConfig.LatePolicy.FAIL || !rejectBadRecords) {
                    failure = error;
                    break;
                }
                rejected = withRejected(rejected, record, error);
                continue;
            }
            groupOf[count] = group;
            if (group != lastGroup) {
                lastGroup = group;
                lastStats = stats.computeIfAbsent(lastGroup, g -> new GroupStats());
            }
            lastStats.add(record.topic(), record.kafkaPartition(), record.kafkaOffset(), record.timestamp(),
                    writer.eventTime);
            ends[count++] = sink.size();
        }
        byte[] data = Arrays.copyOf(sink.array(), sink.size());
        if (sink.array().length > (4 << 20)) {
            SINK.remove(); // do not keep a buffer grown by a rare huge chunk
        }
        return new EncodedChunk(data, count == ends.length ? ends : Arrays.copyOf(ends, count),
                count == groupOf.length ? groupOf : Arrays.copyOf(groupOf, count), count, stats, rejected, failure);
    }

    /** The chunk's rejected records so far, with one more (the list is made at the first). */
    private static List<RejectedRecord> withRejected(List<RejectedRecord> rejected, SinkRecord record,
            DataException error) {
        List<RejectedRecord> more = rejected.isEmpty() ? new ArrayList<>() : rejected;
        more.add(new RejectedRecord(record, error));
        return more;
    }

    /** The error of a late record the policy does not land: it names the record, its time partition and the fix. */
    private static DataException lateError(TakenRecord taken, RecordGroup group, LateCheck.Late late) {
        return new DataException(taken.value().describe(taken.record()) + " is late: time partition "
                + late.timePartition() + " of table " + group.table() + " is marked done, or older than one that "
                + "is, and "
                + DoneConfig.PARTITION_LATE_POLICY + "=" + late.policy().value() + ". Set "
                + DoneConfig.PARTITION_LATE_POLICY + "=land to land late records (counted in "
                + "the ledger's late_records), or raise partition.done.lateness.ms or partition.done.delay.ms so "
                + "that time partitions are marked later.");
    }

    /** Forgets the file groups of a closed or dropped batch. */
    void reset() {
        groups.clear();
    }

    private RecordGroup groupOf(TableLayout layout, PartitionValues partition) {
        return groups.computeIfAbsent(new GroupKey(layout, partition),
                k -> new RecordGroup(layout, partition, null, null));
    }

    /** Partitions one record's value and appends its Avro datum to the chunk, by the value's kind. */
    private final class RecordWriter implements RecordValue.Handler<RecordGroup> {

        private final ByteSink sink;
        private final LastLayout<org.apache.kafka.connect.data.Schema, EncodingLayout> structLayouts =
                new LastLayout<>(layouts::layoutFor);
        private final LastLayout<org.apache.avro.Schema, PassthroughLayout> datumLayouts =
                new LastLayout<>(layouts::passthroughLayoutFor);
        SinkRecord record;
        String table;
        /** The last record's event time ({@link io.hivesink.route.Partitioner#NO_EVENT_TIME} if none). */
        long eventTime;

        RecordWriter(ByteSink sink) {
            this.sink = sink;
        }

        @Override
        public RecordGroup connect(Struct value) {
            EncodingLayout layout = structLayouts.of(table, value.schema());
            RecordGroup group = groupOf(layout, layout.partitioner().partitionOf(record, value));
            eventTime = layout.partitioner().eventTime(record, value);
            layout.encoder().encode(value, sink);
            return group;
        }

        @Override
        public RecordGroup framed(FramedDatum datum) {
            PassthroughLayout layout = datumLayouts.of(table, datum.writer());
            int offset = datum.frame().offset();
            int length = datum.frame().length();
            // reads the partition fields and proves the whole datum sound before its bytes are copied
            Struct fields = layout.datumFields().read(datum.value(), offset, length);
            RecordGroup group = groupOf(layout, layout.partitioner().partitionOf(record, fields));
            eventTime = layout.partitioner().eventTime(record, fields);
            sink.writeFixed(datum.value(), offset, length);
            return group;
        }
    }

    /**
     * The last layout looked up for one kind of value: a look-up compares schemas deeply, so it is asked again only
     * when the table or the schema object changes.
     */
    private static final class LastLayout<S, L extends TableLayout> {

        private final BiFunction<String, S, L> lookUp;
        private L layout;
        private S schema;

        LastLayout(BiFunction<String, S, L> lookUp) {
            this.lookUp = lookUp;
        }

        @SuppressWarnings("ReferenceEquality") // identity finds the repeats; the look-up compares deeply
        L of(String table, S recordSchema) {
            if (layout == null || recordSchema != schema || !table.equals(layout.table())) {
                layout = null; // a table that refuses the schema throws here: nothing stale is kept
                layout = lookUp.apply(table, recordSchema);
                schema = recordSchema;
            }
            return layout;
        }
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
