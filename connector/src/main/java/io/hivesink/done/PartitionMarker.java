package io.hivesink.done;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.LedgerCounts;
import io.hivesink.metastore.Metastore;
import io.hivesink.table.DataFileName;
import io.hivesink.table.HivePaths;
import io.hivesink.table.PartitionValues;

/**
 * Marks one time partition of a table done, in steps that may each be made again (after a crash, or by a task that
 * reached it at the same time) to the same effect, the done row last, so that the row never precedes what it vouches
 * for: 1. the parameters of its Hive partitions (every value of the columns beside the time's); 2. a
 * {@code _SUCCESS} file in each one's directory, if the table wants them; 3. its row in the {@link DoneTable}.
 */
public final class PartitionMarker {

    public static final String DONE_TIME = "hive-sink.done.time";
    public static final String DONE_WATERMARK = "hive-sink.done.watermark";
    /** The records in the Hive partition when it was marked, or since late records landed in it. */
    public static final String DONE_RECORDS = "hive-sink.done.records";
    /** Its data files, likewise. */
    public static final String DONE_FILES = "hive-sink.done.files";
    /** The records in it that landed after it was marked done (partition.late.policy=land). */
    public static final String LATE_RECORDS = "hive-sink.late.records";
    public static final String SUCCESS_FILE = "_SUCCESS";
    /** Rounds a note makes at most while other tasks' late records keep changing the time partition's files. */
    private static final int NOTE_ROUNDS = 5;
    private static final Logger log = LoggerFactory.getLogger(PartitionMarker.class);

    private final Metastore metastore;
    private final FileSystem fs;
    private final DoneTable doneTable;
    private final String connector;
    private final String attempt;
    private final LongSupplier clock;
    private final FaultInjector faults;
    private final LandedRecords landed;
    private final PartitionWrite write;

    /**
     * @param attempt unique to this task's run: names the directory of its done rows
     * @param landed  counts the records of a Hive partition's batches, for the done row
     * @param moves   where compactions moved partitions of compacted tables, which a write must not undo
     */
    public PartitionMarker(Metastore metastore, FileSystem fs, DoneTable doneTable, String connector, String attempt,
            LongSupplier clock, FaultInjector faults, LandedRecords landed, PartitionMoves moves) {
        this.faults = faults;
        this.metastore = metastore;
        this.fs = fs;
        this.doneTable = doneTable;
        this.connector = connector;
        this.attempt = attempt;
        this.clock = clock;
        this.landed = landed;
        this.write = new PartitionWrite(metastore, moves);
    }

    /**
     * A table partitioned by time, as the marker needs it.
     *
     * @param compacted whether compactions move its partitions ({@code compaction.enabled})
     */
    public record TimeTable(String database, String name, List<String> partitionColumns, TimeGrain grain,
            boolean successFile, boolean compacted) {

        /** The positions of the time columns among the partition columns. */
        int[] timeColumns() {
            int[] at = new int[grain.columns().size()];
            for (int i = 0; i < at.length; i++) {
                at[i] = partitionColumns.indexOf(grain.columns().get(i));
                if (at[i] < 0) {
                    throw new IllegalStateException("Table " + database + "." + name + " has no partition column "
                            + grain.columns().get(i) + " of its time pattern");
                }
            }
            return at;
        }

        /**
         * The start of the time partition a Hive partition of the table lies in, or {@link Long#MIN_VALUE} if none
         * (Hive's default partition, of records without a time).
         *
         * @param partitionPath the Hive partition, as a path under the table
         */
        public long startOf(String partitionPath) {
            List<String> values = HivePaths.valuesOf(partitionPath);
            if (values.size() != partitionColumns.size()) {
                return Long.MIN_VALUE;
            }
            List<String> time = new ArrayList<>();
            for (int i : timeColumns()) {
                time.add(values.get(i));
            }
            return grain.startOfValues(time);
        }

        /** The time partition's name, such as {@code dt=2026-11-22/hr=05}. */
        public String timePartition(long start) {
            return new PartitionValues(grain.columns(), grain.values(start)).path();
        }
    }

    /**
     * Marks the time partition starting at {@code start} done.
     *
     * @return whether this call wrote its done row (false: another task's is there)
     */
    public boolean mark(TimeTable table, long start, long watermark) {
        long now = clock.getAsLong();
        List<Partition> partitions = hivePartitions(table, start);
        PartitionTally tally = tally(table, start, partitions);
        List<Partition> altered = new ArrayList<>();
        for (Partition partition : partitions) {
            Map<String, String> params = parameters(partition);
            if (!params.containsKey(DONE_TIME)) { // marked once: a second pass leaves the first's figures
                params.put(DONE_TIME, Long.toString(now));
                params.put(DONE_WATERMARK, Long.toString(watermark));
                params.putAll(tally.parametersOf(partition));
                partition.setParameters(params);
                altered.add(partition);
            }
        }
        write.write(table, altered);
        faults.reached(FaultPoint.DONE_PARAMETERS);
        successFiles(table, start, partitions);
        faults.reached(FaultPoint.DONE_SUCCESS_FILES);
        boolean wrote = doneTable.mark(new DoneTable.Row(connector, table.name(), table.timePartition(start), start,
                table.grain().endOf(start), now, watermark, partitions.size(), tally.files(), tally.bytes(),
                tally.records(), tally.late()), attempt, () -> faults.reached(FaultPoint.DONE_ROW_WRITTEN));
        if (!wrote) {
            note(table, start); // the other task's row may have missed batches this task sees: one of its own
        }
        return wrote;
    }

    /**
     * Brings a time partition marked done up to date after late records landed in it: its Hive partitions'
     * parameters (a Hive partition the late records made gets the mark's too), their {@code _SUCCESS} files, and its
     * done row, replaced whole ({@link DoneTable#replace}). Repeatable. Tasks that land late records in one time
     * partition at once converge: each counts its files again after its own writes, and writes again if they changed.
     *
     * @return what became of it
     */
    public Noted note(TimeTable table, long start) {
        String time = table.timePartition(start);
        boolean changed = false;
        for (int round = 0; round < NOTE_ROUNDS; round++) {
            Optional<DoneTable.Marked> marked = doneTable.marked(table.name(), time);
            if (marked.isEmpty()) {
                return Noted.UNMARKED;
            }
            List<Partition> partitions = hivePartitions(table, start);
            PartitionTally tally = tally(table, start, partitions);
            DoneTable.Row was = marked.get().row() != null ? marked.get().row() : rebuilt(table, start, partitions);
            List<Partition> altered = new ArrayList<>();
            List<Partition> unmarked = new ArrayList<>(); // made by late records: the mark's _SUCCESS is not there
            for (Partition partition : partitions) {
                Map<String, String> params = parameters(partition);
                Map<String, String> before = Map.copyOf(params);
                if (!params.containsKey(DONE_TIME)) {
                    unmarked.add(partition);
                }
                params.putIfAbsent(DONE_TIME, Long.toString(was.doneTime()));
                params.putIfAbsent(DONE_WATERMARK, Long.toString(was.watermark()));
                params.remove(DONE_RECORDS); // unknown now, if the tally has none
                params.remove(LATE_RECORDS);
                params.putAll(tally.parametersOf(partition));
                if (!params.equals(before)) {
                    partition.setParameters(params);
                    altered.add(partition);
                }
            }
            write.write(table, altered);
            successFiles(table, start, unmarked);
            DoneTable.Row now = was.withFigures(partitions.size(), tally.files(), tally.bytes(), tally.records(),
                    tally.late());
            changed |= !altered.isEmpty();
            if (!now.equals(was) || marked.get().row() == null) {
                doneTable.replace(marked.get(), now, attempt);
                changed = true;
            }
            if (tally.paths().equals(tally(table, start, hivePartitions(table, start)).paths())) {
                return changed ? Noted.UPDATED : Noted.UNCHANGED;
            }
        }
        log.warn("The files of {} {} kept changing while its done row was brought up to date; noted as of {} rounds",
                table.name(), time, NOTE_ROUNDS);
        return Noted.UPDATED;
    }

    /** What a note did. */
    public enum Noted {
        /** The time partition is not marked done: nothing to note. */
        UNMARKED,
        /** Its figures held already. */
        UNCHANGED,
        /** Its figures were brought up to date. */
        UPDATED
    }

    /**
     * A done row in place of one whose file is gone (a task that replaced it stalled past the retention of replaced
     * rows): its done time and watermark from its Hive partitions' parameters, else now.
     */
    private DoneTable.Row rebuilt(TimeTable table, long start, List<Partition> partitions) {
        long now = clock.getAsLong();
        Map<String, String> params = partitions.isEmpty() ? Map.of() : parameters(partitions.get(0));
        long doneTime = Long.parseLong(params.getOrDefault(DONE_TIME, Long.toString(now)));
        long watermark = Long.parseLong(params.getOrDefault(DONE_WATERMARK, Long.toString(now)));
        log.warn("The done row of {} {} is registered but its file is gone: it is written again", table.name(),
                table.timePartition(start));
        return new DoneTable.Row(connector, table.name(), table.timePartition(start), start,
                table.grain().endOf(start), doneTime, watermark, 0, 0, 0, null, null);
    }

    private static Map<String, String> parameters(Partition partition) {
        return partition.getParameters() == null ? new HashMap<>() : new HashMap<>(partition.getParameters());
    }

    private void successFiles(TimeTable table, long start, List<Partition> partitions) {
        if (!table.successFile()) {
            return;
        }
        try {
            for (Partition partition : partitions) {
                fs.create(new Path(new Path(partition.getSd().getLocation()), SUCCESS_FILE), true).close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the _SUCCESS files of " + table.name() + " "
                    + table.timePartition(start), e);
        }
    }

    /** What the Hive partitions of a time partition hold: their data files, and their records as the ledger says. */
    private PartitionTally tally(TimeTable table, long start, List<Partition> partitions) {
        PartitionTally tally = new PartitionTally();
        try {
            for (Partition partition : partitions) {
                Set<String> batches = new TreeSet<>();
                boolean foreign = false;
                int files = 0;
                for (FileStatus file : fs.listStatus(new Path(partition.getSd().getLocation()))) {
                    String name = file.getPath().getName();
                    if (file.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                        files++;
                        tally.file(file);
                        Optional<String> batch = DataFileName.batchOf(name);
                        batch.ifPresent(batches::add);
                        foreign |= batch.isEmpty(); // not the connector's: no ledger row counts it
                    }
                }
                LedgerCounts.Counts counted = foreign ? null : landed.in(table.name(),
                        new PartitionValues(table.partitionColumns(), partition.getValues()).path(), batches);
                tally.partition(partition, files, counted);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not count the files of " + table.name() + " "
                    + table.timePartition(start), e);
        }
        return tally;
    }

    /** The table's Hive partitions in the time partition: those whose time columns have its values. */
    public List<Partition> hivePartitions(TimeTable table, long start) {
        int[] at = table.timeColumns();
        List<String> values = table.grain().values(start);
        boolean leading = true;
        for (int i = 0; i < at.length; i++) {
            leading &= at[i] == i;
        }
        List<String> names = leading ? metastore.partitionNamesUnder(table.database(), table.name(), values)
                : metastore.partitionNames(table.database(), table.name());
        List<String> matching = new ArrayList<>();
        for (String name : names) {
            List<String> partitionValues = HivePaths.valuesOf(name);
            boolean in = partitionValues.size() == table.partitionColumns().size();
            for (int i = 0; in && i < at.length; i++) {
                in = partitionValues.get(at[i]).equals(values.get(i));
            }
            if (in) {
                matching.add(name);
            }
        }
        return metastore.partitionsByNames(table.database(), table.name(), matching);
    }

    /**
     * The start of the earliest time partition among the table's Hive partitions, or {@link Long#MIN_VALUE} if it
     * has none (Hive's default partition, of records without a time, names none).
     */
    public long firstStart(TimeTable table) {
        long first = Long.MAX_VALUE;
        for (String name : metastore.partitionNames(table.database(), table.name())) {
            long start = table.startOf(name);
            if (start != Long.MIN_VALUE) {
                first = Math.min(first, start);
            }
        }
        return first == Long.MAX_VALUE ? Long.MIN_VALUE : first;
    }
}
