package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.hivesink.commit.Fencing;
import io.hivesink.commit.StateHolds;
import io.hivesink.commit.StateLocksAccess;
import io.hivesink.commit.StateTables;
import io.hivesink.config.TableConfig;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.table.DataFileName;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * What a compaction's unit tests start from: a compacted table {@code db.orders} with one day's partition registered at
 * its first directory, the task states of tasks 0 and 1 under compare-and-set, the compaction log, and four batches of
 * ten records each landed in the day (ids 10 to 49).
 */
public final class DayPartition {

    public static final Schema SCHEMA = SchemaBuilder.record("orders").fields().requiredLong("id").endRecord();
    public static final String DAY = "day=2026-11-29";
    /** The compaction the tests run. */
    public static final String COMPACTION = "compact-c-1";

    public final InMemoryMetastore metastore;
    public final FileSystem fs;
    public final HiveTables tables;
    public final StateTables states;
    public final StateHolds holds;
    public final CompactionLog compactionLog;
    /** The day's directory before the compaction. */
    public final Path current;
    /** The directory the compaction merges into. */
    public final Path next;

    public DayPartition(InMemoryMetastore metastore, java.nio.file.Path dir) throws IOException {
        this(metastore, dir, Fencing.COMPARE_AND_SET);
    }

    /** The same where {@code fencing} fences the task states (locks: as Hive 3.1, with a stale bound of 60 s). */
    public DayPartition(InMemoryMetastore metastore, java.nio.file.Path dir, Fencing fencing) throws IOException {
        this.metastore = metastore;
        metastore.ignoreCompareAndSet = fencing == Fencing.LOCKS;
        fs = FileSystem.getLocal(new Configuration()).getRaw();
        tables = new HiveTables(metastore, "db", dir.toUri().toString(),
                table -> TableConfig.of(Map.of("compaction.enabled", "true"), null));
        HiveTable orders = tables.ensureTable("orders", SCHEMA, new PartitionSpec(List.of("day"), List.of("string")));
        tables.registerPartitions(orders, List.of(new PartitionValues(List.of("day"), List.of("2026-11-29"))));
        current = new Path(orders.firstLocation(DAY));
        next = new Path(current.getParent(), COMPACTION);
        states = new StateTables(metastore, "hive_sink", new StateTables.Deployment("conn", "conn", "db"),
                dir.toUri() + "/s", "conn-t0-c", 60_000);
        states.use(fencing);
        metastore.createDatabase("hive_sink", dir.toUri() + "/hive_sink");
        states.readOrCreate(0);
        states.readOrCreate(1);
        holds = new StateHolds(states);
        compactionLog = new CompactionLog(tables, metastore, fs, CompactionLog.NAME);
        for (int batch = 1; batch <= 4; batch++) {
            landed("conn-t0-a-" + batch, batch * 10L, 1_000L * batch);
        }
    }

    /** The parameters of a task's state table as they are now: what a write under a lock read, say. */
    public Map<String, String> stateParameters(int task) {
        return StateLocksAccess.parameters(metastore, "conn", task);
    }

    /** Puts a task's state table's parameters back as given: a write whose lock was broken, landing late. */
    public void lateWrite(int task, Map<String, String> params) {
        StateLocksAccess.putParameters(metastore, "conn", task, params);
    }

    /** Another instance broke a lock on a task's state table at {@code at} (epoch ms). */
    public void lockBrokenAt(int task, long at) {
        StateLocksAccess.stampLockBroken(metastore, "conn", task, at);
    }

    /** A batch's file in the current directory, written at {@code time}: ids {@code from} to {@code from + 9}. */
    public void landed(String batch, long from, long time) throws IOException {
        Path path = new Path(current, DataFileName.of(batch, 1, ".avro"));
        try (OutputStream out = fs.create(path);
                DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(SCHEMA))) {
            writer.create(SCHEMA, out);
            for (long id = from; id < from + 10; id++) {
                GenericRecord record = new GenericData.Record(SCHEMA);
                record.put("id", id);
                writer.append(record);
            }
        }
        fs.setTimes(path, time, -1);
    }

    /** The target of the compaction the tests run: task 0's, into {@link #next}. */
    public Compactor.Target target() {
        return new Compactor.Target("conn", 0, "orders", DAY, current, next, COMPACTION,
                new MergeStep(fs, new AvroFileMerger(), 1 << 20, 3));
    }

    /** The day's location in the metastore. */
    public String location() {
        return metastore.getPartition("db", "orders", List.of("2026-11-29")).orElseThrow().getSd().getLocation();
    }

    /** The ids in the data files of {@code directory}, sorted. */
    public List<Long> ids(Path directory) throws IOException {
        List<Long> ids = new ArrayList<>();
        for (FileStatus file : fs.listStatus(directory, f -> !f.getName().startsWith("_"))) {
            try (DataFileStream<GenericRecord> in = new DataFileStream<>(fs.open(file.getPath()),
                    new GenericDatumReader<>())) {
                in.forEach(r -> ids.add((Long) r.get("id")));
            }
        }
        ids.sort(null);
        return ids;
    }

    /** The ids {@code from} to {@code to - 1}. */
    public static List<Long> range(long from, long to) {
        List<Long> ids = new ArrayList<>();
        for (long id = from; id < to; id++) {
            ids.add(id);
        }
        return ids;
    }
}
