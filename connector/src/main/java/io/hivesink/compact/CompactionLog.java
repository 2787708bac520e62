package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * The compaction log: a Hive table with one row per (compaction, partition it replaced the files of), in a Hive
 * partition per compaction ({@code compaction_id}). Adding that partition is the one write that decides a compaction
 * (step 6 of {@code docs/compaction.md}): the compactor adds it with its rows, marked finished; whoever finds the
 * compaction stuck adds it with no rows, marked undone; the metastore adds it once (add if not exists), so exactly
 * one of them decides. The rows lie in a directory outside the log's own ({@code rows_of_<log>}, as the done table's
 * rows, for the same reason: an {@code MSCK REPAIR TABLE} finds no directory in the table to add a partition from
 * before its decision, and Hive 4's {@code SYNC PARTITIONS} leaves a location outside the table alone).
 */
public final class CompactionLog {

    /** The log's table, in the ledger's database. */
    public static final String NAME = "hive_sink_compactions";
    static final String KEY = "compaction_id";
    /** The partition parameter that says how the compaction was decided. */
    static final String OUTCOME = "hive-sink.compaction.outcome";
    private static final String ROWS_FILE = "rows.avro";
    private static final PartitionSpec SPEC = new PartitionSpec(List.of(KEY), List.of("string"));
    private static final Schema TIMESTAMP = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
    private static final Schema NAMES = Schema.createArray(Schema.create(Schema.Type.STRING));
    static final Schema ROW = SchemaBuilder.record("CompactionRow").namespace("io.hivesink.compact")
            .doc("One row per partition a compaction replaced the files of")
            .fields()
            .name("connector_name").doc("the Kafka Connect connector").type().stringType().noDefault()
            .name("task_id").doc("the connector's task that compacted it").type().intType().noDefault()
            .name("table_name").doc("the table").type().stringType().noDefault()
            .name("partition_name").doc("the Hive partition, empty if the table is unpartitioned").type()
                .stringType().noDefault()
            .name("old_location").doc("the partition's directory before").type().stringType().noDefault()
            .name("new_location").doc("its directory after").type().stringType().noDefault()
            .name("replaced_files").doc("the files merged, in the order their records are in the merged files")
                .type(NAMES).noDefault()
            .name("replaced_batches").doc("the batches those files were of").type(NAMES).noDefault()
            .name("merged_files").doc("the files that replace them").type(NAMES).noDefault()
            .name("record_count").doc("records in the merged files").type().longType().noDefault()
            .name("bytes_before").doc("bytes of the files merged").type().longType().noDefault()
            .name("bytes_after").doc("bytes of the merged files").type().longType().noDefault()
            .name("decide_time").doc("when the compaction was decided").type(TIMESTAMP).noDefault()
            .endRecord();

    /** How a compaction was decided. */
    public enum Outcome {
        /** Its rows are in the log: the swap is made, by whoever finds it. */
        FINISHED,
        /** Decided by someone who found it stuck: nothing of it is made, its holds go. */
        UNDONE
    }

    /** What a compaction did to one partition. */
    public record Row(String connector, int task, String table, String partition, String oldLocation,
            String newLocation, List<String> replacedFiles, List<String> replacedBatches, List<String> mergedFiles,
            long records, long bytesBefore, long bytesAfter, long decideTime) {

        public Row {
            replacedFiles = List.copyOf(replacedFiles);
            replacedBatches = List.copyOf(replacedBatches);
            mergedFiles = List.copyOf(mergedFiles);
        }
    }

    private final HiveTables tables;
    private final Metastore metastore;
    private final FileSystem fs;
    private final String name;
    private HiveTable table;

    public CompactionLog(HiveTables tables, Metastore metastore, FileSystem fs, String name) {
        this.tables = tables;
        this.metastore = metastore;
        this.fs = fs;
        this.name = name;
    }

    private HiveTable table() {
        if (table == null) {
            table = tables.ensureTable(name, ROW, SPEC);
        }
        return table;
    }

    /** Beside the log's directory, not in it, and not a name that starts with the log's. */
    private Path rowsRoot() {
        Path location = new Path(table().location());
        return new Path(location.getParent(), "rows_of_" + location.getName());
    }

    private Path rowsDir(String compaction, Outcome outcome) {
        return new Path(new Path(rowsRoot(), new PartitionValues(SPEC.names(), List.of(compaction)).path()),
                outcome.name().toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * The compactions whose old directories wait for their retention: an empty file each, named by the compaction
     * and when it was noted ({@code <compaction>.<epoch ms>}: compaction ids hold no dot), hidden from MSCK.
     */
    private Path retiringDir() {
        return new Path(rowsRoot(), "_retiring");
    }

    /** Notes, before the compaction is decided, that its old directory is to be removed after the retention. */
    public void retireLater(String compaction, long at) {
        Path file = new Path(retiringDir(), compaction + "." + at);
        try {
            fs.create(file, true).close();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }

    /** The compactions noted to retire, each with when it was noted. */
    public Map<String, Long> retiring() {
        Map<String, Long> noted = new java.util.TreeMap<>();
        try {
            if (fs.exists(retiringDir())) {
                for (org.apache.hadoop.fs.FileStatus file : fs.listStatus(retiringDir())) {
                    String name = file.getPath().getName();
                    int dot = name.lastIndexOf('.');
                    if (dot > 0) {
                        noted.merge(name.substring(0, dot), Long.parseLong(name.substring(dot + 1)), Math::min);
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("Could not list the compactions to retire in " + retiringDir(), e);
        }
        return noted;
    }

    /** The compaction's old directory is removed (or it was undone): nothing left to retire. */
    public void retired(String compaction, long at) {
        Path file = new Path(retiringDir(), compaction + "." + at);
        try {
            fs.delete(file, false);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not remove " + file, e);
        }
    }

    /**
     * Decides the compaction finished, with its rows, unless it is decided already.
     *
     * @return how it is decided: {@link Outcome#FINISHED} by this call or an earlier one of the compactor's (a
     *     retry whose first answer was lost), or {@link Outcome#UNDONE} by someone who found it stuck
     */
    public Outcome finish(String compaction, List<Row> rows) {
        Path dir = rowsDir(compaction, Outcome.FINISHED);
        try (OutputStream out = fs.create(new Path(dir, ROWS_FILE), true)) {
            write(rows, out);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the compaction log's rows of " + compaction + " under "
                    + dir, e);
        }
        return decide(compaction, Outcome.FINISHED, dir);
    }

    /**
     * Decides the compaction undone, unless it is decided already.
     *
     * @return how it is decided: {@link Outcome#UNDONE}, by this call or before, or {@link Outcome#FINISHED}
     */
    public Outcome undo(String compaction) {
        Path dir = rowsDir(compaction, Outcome.UNDONE);
        try {
            fs.mkdirs(dir); // a location that exists, so that Hive 4's check keeps the partition
        } catch (IOException e) {
            throw new UncheckedIOException("Could not make " + dir, e);
        }
        return decide(compaction, Outcome.UNDONE, dir);
    }

    /** How the compaction was decided, if it was. */
    public Optional<Outcome> outcome(String compaction) {
        return metastore.getPartition(tables.database(), table().name(), List.of(compaction))
                .map(CompactionLog::outcomeOf);
    }

    /** The rows of a compaction decided finished, as its compactor wrote them; none if it is not. */
    public List<Row> rows(String compaction) {
        Optional<Partition> partition = metastore.getPartition(tables.database(), table().name(),
                List.of(compaction));
        if (partition.isEmpty() || outcomeOf(partition.get()) != Outcome.FINISHED) {
            return List.of();
        }
        Path file = new Path(partition.get().getSd().getLocation(), ROWS_FILE);
        List<Row> rows = new java.util.ArrayList<>();
        try (DataFileStream<GenericRecord> in = new DataFileStream<>(fs.open(file), new GenericDatumReader<>(ROW))) {
            for (GenericRecord record : in) {
                rows.add(new Row(text(record, "connector_name"), (Integer) record.get("task_id"),
                        text(record, "table_name"), text(record, "partition_name"), text(record, "old_location"),
                        text(record, "new_location"), texts(record, "replaced_files"),
                        texts(record, "replaced_batches"), texts(record, "merged_files"),
                        (Long) record.get("record_count"), (Long) record.get("bytes_before"),
                        (Long) record.get("bytes_after"), (Long) record.get("decide_time")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the compaction log's rows of " + compaction + " in "
                    + file, e);
        }
        return rows;
    }

    private static String text(GenericRecord record, String field) {
        return record.get(field).toString();
    }

    private static List<String> texts(GenericRecord record, String field) {
        List<String> texts = new java.util.ArrayList<>();
        for (Object value : (Iterable<?>) record.get(field)) {
            texts.add(value.toString());
        }
        return texts;
    }

    private Outcome decide(String compaction, Outcome outcome, Path dir) {
        Partition partition = tables.partition(table(), new PartitionValues(SPEC.names(), List.of(compaction)));
        partition.getSd().setLocation(dir.toString());
        Map<String, String> params = new HashMap<>();
        params.put(OUTCOME, outcome.name());
        partition.setParameters(params);
        if (!metastore.addPartitions(List.of(partition)).isEmpty()) {
            return outcome;
        }
        // there already: decided before, by this compactor (an answer lost) or by another
        return outcome(compaction).orElseThrow(() -> new IllegalStateException("The compaction log's partition of "
                + compaction + " was neither added nor found"));
    }

    /** A partition added by anyone else (an MSCK of rows put there by hand) decides nothing: it counts as undone. */
    private static Outcome outcomeOf(Partition partition) {
        String outcome = partition.getParameters() == null ? null : partition.getParameters().get(OUTCOME);
        return Outcome.FINISHED.name().equals(outcome) ? Outcome.FINISHED : Outcome.UNDONE;
    }

    private static void write(List<Row> rows, OutputStream out) throws IOException {
        try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(ROW))) {
            writer.create(ROW, out);
            for (Row row : rows) {
                GenericRecord record = new GenericData.Record(ROW);
                record.put("connector_name", row.connector());
                record.put("task_id", row.task());
                record.put("table_name", row.table());
                record.put("partition_name", row.partition());
                record.put("old_location", row.oldLocation());
                record.put("new_location", row.newLocation());
                record.put("replaced_files", row.replacedFiles());
                record.put("replaced_batches", row.replacedBatches());
                record.put("merged_files", row.mergedFiles());
                record.put("record_count", row.records());
                record.put("bytes_before", row.bytesBefore());
                record.put("bytes_after", row.bytesAfter());
                record.put("decide_time", row.decideTime());
                writer.append(record);
            }
        }
    }
}
