package io.hivesink.done;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.compact.CompactionMoves;
import io.hivesink.compact.Compactor;
import io.hivesink.compact.DayPartition;
import io.hivesink.metastore.InMemoryMetastore;

/**
 * The done marker's writes of a compacted table's partition against a compaction's swap: {@code alter_partitions}
 * writes a partition whole, so a write built on the partition as read before the swap must not put its old location
 * back (every batch landed in the new one since would vanish from queries).
 */
class PartitionWriteTest {

    private static final String DAY = DayPartition.DAY;
    private static final PartitionMarker.TimeTable ORDERS = new PartitionMarker.TimeTable("db", "orders",
            List.of("day"), null, true, true);

    @TempDir
    java.nio.file.Path dir;
    /** Armed, the next write of a partition lets the compaction run first: the write lands after the swap. */
    private final AtomicBoolean compactBeforeNextWrite = new AtomicBoolean();
    private DayPartition day;
    private Compactor compactor;
    private InMemoryMetastore metastore;
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
        day = new DayPartition(metastore, dir);
        next = day.next;
        AtomicLong now = new AtomicLong(1_000_000);
        compactor = new Compactor(metastore, "db", day.fs, day.holds, day.compactionLog, now::get, now::addAndGet,
                10_000, io.hivesink.commit.FaultInjector.NONE);
    }

    private void compact() {
        try {
            assertEquals(Compactor.Ended.SWAPPED, compactor.compact(day.target()));
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
        return new PartitionWrite(metastore, new CompactionMoves(day.holds, 0, day.compactionLog));
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
        assertEquals(day.current.toUri().getPath(), new Path(partition().getSd().getLocation()).toUri().getPath(),
                "what step 2 of the write mends: the old location is back");
    }
}
