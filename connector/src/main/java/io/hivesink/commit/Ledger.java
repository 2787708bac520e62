package io.hivesink.commit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.kafka.common.TopicPartition;

import io.hivesink.batch.Batch;
import io.hivesink.batch.GroupStats;
import io.hivesink.batch.LateCheck;
import io.hivesink.batch.RecordGroup;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * The batch ledger: a Hive table with one row per (batch, table, partition), partitioned by batch id. A batch's
 * rows sit in a partition of their own, and registering that partition is the one metastore write that marks the
 * batch complete (its end offsets ride along in the partition's parameters), so a query sees a batch's rows if and
 * only if the batch is committed.
 */
public final class Ledger {

    static final String NEXT_OFFSETS = "hive-sink.next-offsets";
    static final String PARTITION_KEY = "batch_id";

    private static final Schema TIMESTAMP = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
    private static final Schema OFFSETS = SchemaBuilder.record("KafkaOffsets").namespace("io.hivesink.ledger")
            .fields()
            .requiredString("topic")
            .requiredInt("kafka_partition")
            .requiredLong("first_offset")
            .requiredLong("last_offset")
            .requiredLong("record_count")
            .endRecord();
    static final Schema ROW = SchemaBuilder.record("LedgerRow").namespace("io.hivesink.ledger")
            .doc("One row per (batch, table, partition) of a committed batch")
            .fields()
            .name("connector_name").doc("the Kafka Connect connector").type().stringType().noDefault()
            .name("task_id").doc("the connector's task that committed the batch").type().intType().noDefault()
            .name("table_name").doc("table the records landed in").type().stringType().noDefault()
            .name("partition_name").doc("Hive partition name, empty if the table is unpartitioned").type()
                .stringType().noDefault()
            .requiredLong("record_count")
            .requiredInt("file_count")
            .name("kafka_offsets").doc("per Kafka partition, the records of this batch in this partition").type()
                .array().items(OFFSETS).noDefault()
            .name("min_timestamp").doc("smallest Kafka record timestamp").type().unionOf().nullType().and()
                .type(TIMESTAMP).endUnion().nullDefault()
            .name("max_timestamp").doc("largest Kafka record timestamp").type().unionOf().nullType().and()
                .type(TIMESTAMP).endUnion().nullDefault()
            .name("commit_time").doc("when the batch's commit began (its intent was written)").type(TIMESTAMP)
                .noDefault()
            .name("late_records").doc("records landed after their time partition was marked done (late records "
                    + "that partition.late.policy=land lets land); null in rows written before they were counted")
                .type().unionOf().nullType().and().longType().endUnion().nullDefault()
            .endRecord();
    private static final PartitionSpec SPEC = new PartitionSpec(List.of(PARTITION_KEY), List.of("string"));
    private final HiveTables tables;
    private final LedgerCounts counts = new LedgerCounts(this);
    /** Tells the records a batch lands in time partitions already marked done. */
    private volatile LateCheck late = LateCheck.NONE;
    private final Metastore metastore;
    private final String tableName;
    private HiveTable table;

    public Ledger(HiveTables tables, Metastore metastore, String tableName) {
        this.tables = tables;
        this.metastore = metastore;
        this.tableName = tableName;
    }

    public String tableName() {
        return tableName;
    }

    public HiveTable table() {
        if (table == null) {
            table = tables.ensureTable(tableName, ROW, SPEC);
        }
        return table;
    }

    public PartitionValues partitionOf(String batchId) {
        return new PartitionValues(SPEC.names(), List.of(batchId));
    }

    /** The name of a batch's ledger file, in its partition. */
    static String fileName(String batchId) {
        return "ledger-" + batchId + ".avro";
    }

    /**
     * Counts, from now on, the records each batch lands in time partitions already marked done ({@code late_records}),
     * as the commit writes its rows: after this task's own marks, which run between its commits, exactly.
     */
    public void countLateBy(LateCheck late) {
        this.late = late;
    }

    /** What batches landed where, as their ledger rows say. */
    public LedgerCounts counts() {
        return counts;
    }

    /** Writes the batch's ledger rows, one per file group, as an Avro file. */
    public long writeRows(Batch batch, String connector, int task, long commitTime, OutputStream out)
            throws IOException {
        Map<String, GenericRecord> rows = new LinkedHashMap<>();
        for (RecordGroup group : batch.groups()) {
            group.stats().landedLate(late.of(group.table(), group.partition()) != null ? group.datums().count() : 0);
            String key = LedgerCounts.key(group.table(), group.partition().path());
            GenericRecord row = rows.get(key);
            if (row == null) {
                row = new GenericData.Record(ROW);
                row.put("connector_name", connector);
                row.put("task_id", task);
                row.put("table_name", group.table());
                row.put("partition_name", group.partition().path());
                row.put("record_count", 0L);
                row.put("file_count", 0);
                row.put("kafka_offsets", new ArrayList<GenericRecord>());
                row.put("commit_time", commitTime);
                row.put("late_records", 0L);
                rows.put(key, row);
            }
            add(row, group);
        }
        ByteArrayOutputStream file = new ByteArrayOutputStream(); // a few rows per table: small
        try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(ROW))) {
            writer.create(ROW, file);
            for (GenericRecord row : rows.values()) {
                writer.append(row);
            }
        }
        Map<String, LedgerCounts.Counts> landed = new HashMap<>();
        rows.forEach((key, row) -> landed.put(key, new LedgerCounts.Counts((Long) row.get("record_count"),
                (Long) row.get("late_records"))));
        counts.wrote(batch.id(), landed);
        file.writeTo(out);
        return file.size();
    }

    @SuppressWarnings("unchecked")
    private static void add(GenericRecord row, RecordGroup group) {
        GroupStats stats = group.stats();
        row.put("record_count", (Long) row.get("record_count") + group.datums().count());
        row.put("file_count", (Integer) row.get("file_count") + 1);
        row.put("late_records", (Long) row.get("late_records") + stats.lateRecords());
        List<GenericRecord> offsets = (List<GenericRecord>) row.get("kafka_offsets");
        for (Map.Entry<TopicPartition, GroupStats.OffsetRange> e : stats.offsets().entrySet()) {
            GenericRecord offset = new GenericData.Record(OFFSETS);
            offset.put("topic", e.getKey().topic());
            offset.put("kafka_partition", e.getKey().partition());
            offset.put("first_offset", e.getValue().first());
            offset.put("last_offset", e.getValue().last());
            offset.put("record_count", e.getValue().count());
            offsets.add(offset);
        }
        row.put("min_timestamp", min((Long) row.get("min_timestamp"), stats.minTimestamp()));
        row.put("max_timestamp", max((Long) row.get("max_timestamp"), stats.maxTimestamp()));
    }

    private static Long min(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.min(a, b));
    }

    private static Long max(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
    }

    /** The committing write: registers the batch's ledger partition, with its end offsets as parameters. */
    public void mark(String batchId, Map<TopicPartition, Long> nextOffsets) {
        Partition partition = tables.partition(table(), partitionOf(batchId));
        Map<String, String> params = new HashMap<>();
        List<String> lines = new ArrayList<>();
        nextOffsets.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(TaskState.PARTITION_ORDER))
                .forEach(e -> lines.add(e.getKey().topic() + "\t" + e.getKey().partition() + "\t" + e.getValue()));
        ParameterLines.put(params, NEXT_OFFSETS, lines);
        DurableFormat.LEDGER_MARKER.stamp(params);
        partition.setParameters(params);
        metastore.addPartitions(List.of(partition));
    }

    /**
     * The end offsets the batch committed, if it is marked: its ledger partition holds them. A partition without them
     * was not added by the commit (MSCK REPAIR TABLE, or partition discovery, found the batch's ledger file moved in
     * place before its marker): the batch is not marked.
     */
    public Optional<Map<TopicPartition, Long>> markedOffsets(String batchId) {
        return metastore.getPartition(tables.database(), tableName, List.of(batchId))
                .filter(p -> p.getParameters() != null
                        && p.getParameters().containsKey(DurableFormat.LEDGER_MARKER.key()))
                .map(Ledger::markedOffsetsOf);
    }

    /** The end offsets a batch's ledger partition (its marker) holds. */
    public static Map<TopicPartition, Long> markedOffsetsOf(Partition marker) {
        Map<String, String> params = marker.getParameters() == null ? Map.of() : marker.getParameters();
        DurableFormat.LEDGER_MARKER.check(params.get(DurableFormat.LEDGER_MARKER.key()), "of batch "
                + String.join("/", marker.getValues()) + " in table " + marker.getDbName() + "."
                + marker.getTableName());
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (String line : ParameterLines.get(params, NEXT_OFFSETS)) {
            String[] f = line.split("\t", -1);
            offsets.put(new TopicPartition(f[0], Integer.parseInt(f[1])), Long.parseLong(f[2]));
        }
        return offsets;
    }
}
