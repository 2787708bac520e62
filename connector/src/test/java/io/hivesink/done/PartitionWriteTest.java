package io.hivesink.done;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.Fencing;
import io.hivesink.commit.StateHolds;
import io.hivesink.commit.StateTables;
import io.hivesink.compact.AvroFileMerger;
import io.hivesink.compact.CompactionLog;
import io.hivesink.compact.CompactionMoves;
import io.hivesink.compact.Compactor;
import io.hivesink.compact.MergeStep;
import io.hivesink.config.TableConfig;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.table.DataFileName;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * The done marker's writes of a compacted table's partition against a compaction's swap: {@code alter_partitions}
 * writes a partition whole, so a write built on the partition as read before the swap must not put its old location
 * back (every batch landed in the new one since would vanish from queries).
 */
class PartitionWriteTest {

    private static final Schema SCHEMA = SchemaBuilder.record("orders").fields().requiredLong("id").endRecord();
    private static final String DAY = "day=2026-11-29";
    private static final PartitionMarker.TimeTable ORDERS = new PartitionMarker.TimeTable("db", "orders",
            List.of("day"), null, true, true);

    @TempDir
    java.nio.file.Path dir;
    /** Armed, the next write of a partition lets the compaction run first: the write lands after the swap. */
    private final AtomicBoolean compactBeforeNextWrite = new AtomicBoolean();
    private Compactor compactor;
    private InMemoryMetastore metastore;
    private FileSystem fs;
    private StateHolds holds;
    private CompactionLog compactionLog;
    private Path current;
    private Path next;

    @BeforeEach
    void setUp() throws IOException {
        metastore = new InMemoryMetastore() {
            @Override
            public synchronized void alterPartitions(String db, String table, List<Partition> partitions) {
                if (compactBeforeNextWrite.getAndSet(false)) {
                    compact();
                }
                super.alterPartitions(db, table, partitions);
            }
        };
        fs = FileSystem.getLocal(new Configuration()).getRaw();
        HiveTables tables = new HiveTables(metastore, "db", dir.toUri().toString(),
                table -> TableConfig.of(Map.of("compaction.enabled", "true"), null));
        HiveTable orders = tables.ensureTable("orders", SCHEMA, new PartitionSpec(List.of("day"), List.of("string")));
        PartitionValues day = new PartitionValues(List.of("day"), List.of("2026-11-29"));
        tables.registerPartitions(orders, List.of(day));
        current = new Path(orders.firstLocation(DAY));
        next = new Path(current.getParent(), "compact-c-1");
        StateTables states = new StateTables(metastore, "hive_sink", new StateTables.Deployment("conn", "conn", "db"),
                dir.toUri() + "/s", "conn-t0-c", 60_000);
        states.use(Fencing.COMPARE_AND_SET);
        metastore.createDatabase("hive_sink", dir.toUri() + "/hive_sink");
        states.readOrCreate(0);
        states.readOrCreate(1);
        holds = new StateHolds(states);
        compactionLog = new CompactionLog(tables, metastore, fs, CompactionLog.NAME);
        AtomicLong now = new AtomicLong(1_000_000);
        compactor = new Compactor(metastore, "db", fs, holds, compactionLog, now::get, now::addAndGet, 10_000,
                io.hivesink.commit.FaultInjector.NONE);
        for (int batch = 1; batch <= 4; batch++) {
            landed("conn-t0-a-" + batch, batch * 10L);
        }
    }

    private void landed(String batch, long from) throws IOException {
        try (OutputStream out = fs.create(new Path(current, DataFileName.of(batch, 1, ".avro")));
                DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(SCHEMA))) {
            writer.create(SCHEMA, out);
            for (long id = from; id < from + 10; id++) {
                GenericRecord record = new GenericData.Record(SCHEMA);
                record.put("id", id);
                writer.append(record);
            }
        }
    }

    private void compact() {
        try {
            assertEquals(Compactor.Ended.SWAPPED, compactor.compact(new Compactor.Target("conn", 0, "orders", DAY,
                    current, next, "compact-c-1", new MergeStep(fs, new AvroFileMerger(), ".avro", 1 << 20, 3))));
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private Partition partition() {
        return metastore.partitionsByNames("db", "orders", List.of(DAY)).get(0);
    }

    /** The partition as the marker read it, with its done parameters set. */
    private Partition marked(String doneTime) {
        Partition read = partition();
        Map<String, String> params = new HashMap<>(read.getParameters());
        params.put(PartitionMarker.DONE_TIME, doneTime);
        read.setParameters(params);
        return read;
    }

    private PartitionWrite write() {
        return new PartitionWrite(metastore, new CompactionMoves(holds, 0, compactionLog));
    }

    @Test
    void aPartitionReadBeforeTheSwapIsWrittenWhereTheSwapPutIt() {
        Partition read = marked("5");
        compact();
        write().write(ORDERS, List.of(read));
        assertEquals(next.toUri().getPath(), new Path(partition().getSd().getLocation()).toUri().getPath());
        assertEquals("5", partition().getParameters().get(PartitionMarker.DONE_TIME));
    }

    @Test
    void aWriteThatLandsAfterTheSwapPutsTheNewLocationBack() {
        Partition read = marked("6");
        compactBeforeNextWrite.set(true); // read again, then swapped, then written: the old location for a moment
        write().write(ORDERS, List.of(read));
        assertEquals(next.toUri().getPath(), new Path(partition().getSd().getLocation()).toUri().getPath(),
                "the hold in the task's state and the log's decision tell the write it undid the swap");
        assertEquals("6", partition().getParameters().get(PartitionMarker.DONE_TIME));
    }

    @Test
    void withoutTheMovesAWriteAfterTheSwapUndoesIt() {
        Partition read = marked("7");
        compactBeforeNextWrite.set(true);
        new PartitionWrite(metastore, PartitionMoves.NONE).write(new PartitionMarker.TimeTable("db", "orders",
                List.of("day"), null, true, false), List.of(read));
        assertEquals(current.toUri().getPath(), new Path(partition().getSd().getLocation()).toUri().getPath(),
                "what step 2 of the write mends: the old location is back");
    }
}
