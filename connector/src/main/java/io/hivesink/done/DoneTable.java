package io.hivesink.done;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.table.HivePaths;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * The done table: one row per time partition marked done, in a Hive partition {@code (table_name, time_partition)}
 * of its own, such as {@code (orders, dt=2026-11-22/hr=05)}; adding that partition is the marker. Tasks that reach
 * the same time partition at once each write their row under a directory of their own, outside the table's
 * directory; the metastore adds the partition once (add if not exists), pointing at one of them, and the others
 * delete theirs, which no reader saw. So a query never sees two rows of one time partition, nor a row before its
 * file is whole.
 */
public final class DoneTable {

    static final String TABLE_KEY = "table_name";
    static final String TIME_KEY = "time_partition";
    /** The file of a done row, in its directory. */
    private static final String ROW_FILE = "done.avro";
    private static final PartitionSpec SPEC = new PartitionSpec(List.of(TABLE_KEY, TIME_KEY),
            List.of("string", "string"));
    private static final Schema TIMESTAMP = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
    static final Schema ROW = SchemaBuilder.record("DoneRow").namespace("io.hivesink.done")
            .doc("One row per time partition of a table marked done")
            .fields()
            .name("connector_name").doc("the Kafka Connect connector that marked it").type().stringType().noDefault()
            .name("period_start").doc("the first instant of the time partition").type(TIMESTAMP).noDefault()
            .name("period_end").doc("the instant after its last").type(TIMESTAMP).noDefault()
            .name("done_time").doc("when it was marked done").type(TIMESTAMP).noDefault()
            .name("watermark").doc("the table's watermark when it was marked").type(TIMESTAMP).noDefault()
            .name("hive_partitions").doc("its Hive partitions (one per value of the columns under the time)").type()
                .intType().noDefault()
            .name("file_count").doc("data files in them when it was marked").type().intType().noDefault()
            .name("file_bytes").doc("their bytes").type().longType().noDefault()
            .name("record_count").doc("records in them, as the ledger rows of their batches say; null if a file "
                    + "is not of a batch in the ledger").type().unionOf().nullType().and().longType().endUnion()
                .nullDefault()
            .name("late_records").doc("records in them that landed after it was marked (partition.late.policy=land); "
                    + "when they land, the row is replaced by one with the figures brought up to date; null if not "
                    + "known").type().unionOf().nullType().and().longType().endUnion().nullDefault()
            .endRecord();

    /** What a done row says of its time partition. */
    public record Row(String connector, String table, String timePartition, long periodStart, long periodEnd,
            long doneTime, long watermark, int hivePartitions, int files, long bytes, Long records, Long late) {

        /** The same mark, with what its time partition holds now. */
        public Row withFigures(int hivePartitions, int files, long bytes, Long records, Long late) {
            return new Row(connector, table, timePartition, periodStart, periodEnd, doneTime, watermark,
                    hivePartitions, files, bytes, records, late);
        }
    }

    /**
     * A time partition's done row as registered: the row (null if its file is gone), and the done table's partition
     * that holds it.
     */
    public record Marked(Row row, Partition partition) {
    }

    /** How long a replaced done row stays readable, for queries planned before it was replaced. */
    static final long RETAINED_MS = 3_600_000;

    private final HiveTables tables;
    private final LongSupplier clock;
    private final Metastore metastore;
    private final FileSystem fs;
    private final String name;
    /** Where the rows' directories go: beside the table's directory, not in it. */
    private final Path rowsRoot;
    private HiveTable table;

    public DoneTable(HiveTables tables, Metastore metastore, FileSystem fs, String name, LongSupplier clock) {
        this.tables = tables;
        this.clock = clock;
        this.metastore = metastore;
        this.fs = fs;
        this.name = name;
        this.rowsRoot = null;
    }

    private DoneTable(DoneTable of, Path rowsRoot) {
        this.tables = of.tables;
        this.clock = of.clock;
        this.metastore = of.metastore;
        this.fs = of.fs;
        this.name = of.name;
        this.rowsRoot = rowsRoot;
        this.table = of.table;
    }

    public String name() {
        return name;
    }

    private HiveTable table() {
        if (table == null) {
            table = tables.ensureTable(name, ROW, SPEC);
        }
        return table;
    }

    /**
     * Beside the table's directory: {@code rows_of_<table>} in the directory that holds it. Not a name that starts
     * with the table's: Hive 4's {@code MSCK REPAIR TABLE ... SYNC PARTITIONS} takes a partition whose location
     * contains the table's location as a string for one inside the table, and drops it unless it is at its
     * standard path.
     */
    private Path rowsRoot() {
        if (rowsRoot != null) {
            return rowsRoot;
        }
        Path location = new Path(table().location());
        return new Path(location.getParent(), "rows_of_" + location.getName());
    }

    /**
     * The end of the latest time partition of {@code landed} marked done, or {@link Long#MIN_VALUE} if none is: where
     * the next to mark starts.
     */
    public long markedUntil(String landed, TimeGrain grain) {
        long until = Long.MIN_VALUE;
        for (String partitionName : metastore.partitionNamesUnder(tables.database(), table().name(),
                List.of(landed))) {
            String time = HivePaths.valuesOf(partitionName).get(1);
            long start = grain.startOfValues(HivePaths.valuesOf(time));
            if (start != Long.MIN_VALUE) {
                until = Math.max(until, grain.endOf(start));
            }
        }
        return until;
    }

    /**
     * Adds the row's partition, the marker, unless another task added it first.
     *
     * @param attempt unique to the caller's run: names the directory of its row
     * @param written   runs once the row's file is written, before its partition is added (a crash test's step)
     * @return whether this call marked it
     */
    public boolean mark(Row row, String attempt, Runnable written) {
        PartitionValues values = new PartitionValues(SPEC.names(), List.of(row.table(), row.timePartition()));
        Path dir = new Path(new Path(rowsRoot(), values.path()), attempt);
        try {
            try (OutputStream out = fs.create(new Path(dir, ROW_FILE), true)) {
                write(row, out);
            }
            written.run();
            Partition partition = tables.partition(table(), values);
            partition.getSd().setLocation(dir.toString());
            boolean added = !metastore.addPartitions(List.of(partition)).isEmpty()
                    || registeredAt(values, dir); // added, its answer lost: the call's retry found it there
            if (!added) {
                fs.delete(dir, true); // another task's row is the marker; nobody read this one
            }
            return added;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the done row of " + row.table() + " "
                    + row.timePartition() + " under " + dir, e);
        }
    }

    /** The time partition's done row, if it is marked; read from the file its done partition holds. */
    public Optional<Marked> marked(String landed, String timePartition) {
        PartitionValues values = new PartitionValues(SPEC.names(), List.of(landed, timePartition));
        Optional<Partition> partition = metastore.getPartition(tables.database(), table().name(), values.values());
        if (partition.isEmpty()) {
            return Optional.empty();
        }
        Path file = new Path(partition.get().getSd().getLocation(), ROW_FILE);
        try (DataFileStream<GenericRecord> rows = new DataFileStream<>(fs.open(file),
                new GenericDatumReader<>(ROW))) {
            GenericRecord row = rows.next();
            return Optional.of(new Marked(new Row(row.get("connector_name").toString(), landed, timePartition,
                    (Long) row.get("period_start"), (Long) row.get("period_end"), (Long) row.get("done_time"),
                    (Long) row.get("watermark"), (Integer) row.get("hive_partitions"), (Integer) row.get("file_count"),
                    (Long) row.get("file_bytes"), (Long) row.get("record_count"), (Long) row.get("late_records")),
                    partition.get()));
        } catch (java.io.FileNotFoundException e) {
            return Optional.of(new Marked(null, partition.get())); // its row is gone: to be written again
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the done row of " + landed + " " + timePartition + " at "
                    + file, e);
        }
    }

    /**
     * Replaces a done row by one with other figures: the new row is written to a directory of its own, then the done
     * partition is moved to it in one metastore call, so a query reads the old row or the new one, never both nor
     * neither. Directories of the time partition's rows that are not the new one and were last written more than
     * {@link #RETAINED_MS} ago are removed then: old rows a query planned before a move may still read, rows of
     * tasks that lost the race to mark, or died before their partition was added.
     *
     * @param attempt unique to the caller's run: names the directory of the new row, with a number of its own
     */
    public void replace(Marked was, Row row, String attempt) {
        PartitionValues values = new PartitionValues(SPEC.names(), List.of(row.table(), row.timePartition()));
        Path rows = new Path(rowsRoot(), values.path());
        Path dir = new Path(rows, attempt + "-" + UUID.randomUUID());
        try {
            try (OutputStream out = fs.create(new Path(dir, ROW_FILE), false)) {
                write(row, out);
            }
            Partition moved = was.partition().deepCopy();
            moved.getSd().setLocation(dir.toString());
            metastore.alterPartitions(tables.database(), table().name(), List.of(moved));
            sweep(rows, values, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not replace the done row of " + row.table() + " "
                    + row.timePartition() + " by one under " + dir, e);
        }
    }

    /**
     * Removes the time partition's row directories that were replaced more than {@link #RETAINED_MS} ago: each but
     * the current one (as the metastore says now) and the one just written, once a directory written after it is
     * older than that. Rows of tasks that lost the race to mark, or died before their partition was added, go the
     * same way.
     */
    private void sweep(Path rows, PartitionValues values, Path written) throws IOException {
        String current = metastore.getPartition(tables.database(), table().name(), values.values())
                .map(p -> new Path(p.getSd().getLocation()).toUri().getPath()).orElse(null);
        java.util.TreeMap<Long, List<Path>> byTime = new java.util.TreeMap<>();
        for (FileStatus dir : fs.listStatus(rows)) {
            if (dir.isDirectory()) {
                byTime.computeIfAbsent(lastWritten(dir.getPath()), t -> new java.util.ArrayList<>()).add(dir.getPath());
            }
        }
        long before = clock.getAsLong() - RETAINED_MS;
        for (Map.Entry<Long, List<Path>> entry : byTime.entrySet()) {
            Long later = byTime.higherKey(entry.getKey());
            if (later == null || later >= before) {
                return; // what was replaced since less than the retention ago stays, and all after it
            }
            for (Path dir : entry.getValue()) {
                String path = dir.toUri().getPath();
                if (!path.equals(current) && !dir.getName().equals(written.getName())) {
                    fs.delete(dir, true);
                }
            }
        }
    }

    /** When the files of a row's directory were last written (an object store's directories have no time). */
    private long lastWritten(Path rowDir) throws IOException {
        long last = Long.MIN_VALUE;
        for (FileStatus file : fs.listStatus(rowDir)) {
            last = Math.max(last, file.getModificationTime());
        }
        return last;
    }

    /** Whether the done partition is registered with its row in {@code dir}. */
    private boolean registeredAt(PartitionValues values, Path dir) {
        return metastore.getPartition(tables.database(), table().name(), values.values())
                .map(p -> HivePaths.sameDir(new Path(p.getSd().getLocation()), dir))
                .orElse(false);
    }

    static void write(Row row, OutputStream out) throws IOException {
        GenericRecord record = new GenericData.Record(ROW);
        record.put("connector_name", row.connector());
        record.put("period_start", row.periodStart());
        record.put("period_end", row.periodEnd());
        record.put("done_time", row.doneTime());
        record.put("watermark", row.watermark());
        record.put("hive_partitions", row.hivePartitions());
        record.put("file_count", row.files());
        record.put("file_bytes", row.bytes());
        record.put("record_count", row.records());
        record.put("late_records", row.late());
        try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(ROW))) {
            writer.create(ROW, out);
            writer.append(record);
        }
    }

    /** The same table, its rows' directories under {@code root} (a test's). */
    DoneTable rowsUnder(Path root) {
        return new DoneTable(this, root);
    }
}
