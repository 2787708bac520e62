package io.hivesink.done;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.metastore.Metastore;
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
    public static final String SUCCESS_FILE = "_SUCCESS";

    private final Metastore metastore;
    private final FileSystem fs;
    private final DoneTable doneTable;
    private final String connector;
    private final String attempt;
    private final LongSupplier clock;
    private final FaultInjector faults;
    private final LandedRecords landed;
    /** A data file's name: {@code part-<batch id>-<number>.<extension>}. */
    private static final Pattern DATA_FILE = Pattern.compile("part-(.+)-\\d{5}(\\..*)?");

    /**
     * @param attempt unique to this task's run: names the directory of its done rows
     * @param landed  counts the records of a Hive partition's batches, for the done row
     */
    public PartitionMarker(Metastore metastore, FileSystem fs, DoneTable doneTable, String connector, String attempt,
            LongSupplier clock, FaultInjector faults, LandedRecords landed) {
        this.faults = faults;
        this.metastore = metastore;
        this.fs = fs;
        this.doneTable = doneTable;
        this.connector = connector;
        this.attempt = attempt;
        this.clock = clock;
        this.landed = landed;
    }

    /** A table partitioned by time, as the marker needs it. */
    public record TimeTable(String database, String name, List<String> partitionColumns, TimeGrain grain,
            boolean successFile) {

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
        Map<String, String> done = Map.of(DONE_TIME, Long.toString(now), DONE_WATERMARK, Long.toString(watermark));
        List<Partition> altered = new ArrayList<>();
        for (Partition partition : partitions) {
            Map<String, String> params = partition.getParameters() == null ? new HashMap<>()
                    : new HashMap<>(partition.getParameters());
            if (!params.containsKey(DONE_TIME)) { // marked once: a second pass leaves the first's figures
                params.putAll(done);
                partition.setParameters(params);
                altered.add(partition);
            }
        }
        metastore.alterPartitions(table.database(), table.name(), altered);
        faults.reached(FaultPoint.DONE_PARAMETERS);
        int files = 0;
        long bytes = 0;
        Long records = 0L;
        try {
            for (Partition partition : partitions) {
                Path dir = new Path(partition.getSd().getLocation());
                Set<String> batches = new TreeSet<>();
                boolean foreign = false;
                for (FileStatus file : fs.listStatus(dir)) {
                    String name = file.getPath().getName();
                    if (file.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                        files++;
                        bytes += file.getLen();
                        Matcher data = DATA_FILE.matcher(name);
                        if (data.matches()) {
                            batches.add(data.group(1));
                        } else {
                            foreign = true; // not the connector's: no ledger row counts it
                        }
                    }
                }
                Long counted = records == null || foreign ? null : landed.in(table.name(),
                        new PartitionValues(table.partitionColumns(), partition.getValues()).path(), batches);
                records = counted == null ? null : records + counted;
                if (table.successFile()) {
                    fs.create(new Path(dir, SUCCESS_FILE), true).close();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not mark the partitions of " + table.name() + " "
                    + table.timePartition(start) + " done", e);
        }
        faults.reached(FaultPoint.DONE_SUCCESS_FILES);
        return doneTable.mark(new DoneTable.Row(connector, table.name(), table.timePartition(start), start,
                table.grain().endOf(start), now, watermark, partitions.size(), files, bytes, records), attempt,
                () -> faults.reached(FaultPoint.DONE_ROW_WRITTEN));
    }

    /** The table's Hive partitions in the time partition: those whose time columns have its values. */
    List<Partition> hivePartitions(TimeTable table, long start) {
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
        int[] at = table.timeColumns();
        long first = Long.MAX_VALUE;
        for (String name : metastore.partitionNames(table.database(), table.name())) {
            List<String> partitionValues = HivePaths.valuesOf(name);
            if (partitionValues.size() != table.partitionColumns().size()) {
                continue;
            }
            List<String> time = new ArrayList<>();
            for (int i : at) {
                time.add(partitionValues.get(i));
            }
            long start = table.grain().startOfValues(time);
            if (start != Long.MIN_VALUE) {
                first = Math.min(first, start);
            }
        }
        return first == Long.MAX_VALUE ? Long.MIN_VALUE : first;
    }
}
