package io.hivesink.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.compact.CompactionLog.Outcome;
import io.hivesink.config.TableConfig;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.InMemoryMetastore;

/** Deciding a compaction: one add of its log partition, by the compactor or by whoever finds it stuck. */
class CompactionLogTest {

    @TempDir
    java.nio.file.Path dir;
    private InMemoryMetastore metastore;
    private FileSystem fs;
    private CompactionLog log;

    @BeforeEach
    void setUp() throws IOException {
        metastore = new InMemoryMetastore();
        fs = FileSystem.getLocal(new Configuration()).getRaw();
        HiveTables tables = new HiveTables(metastore, "db", dir.toUri().toString(),
                table -> TableConfig.of(Map.of(), null));
        log = new CompactionLog(tables, metastore, fs, "hive_sink_compactions");
    }

    private static CompactionLog.Row row(String partition) {
        return new CompactionLog.Row("orders-sink", 1, "orders", partition, "hdfs://nn/p/" + partition + "/0",
                "hdfs://nn/p/" + partition + "/compact-i-1", List.of("part-a-1-00001.avro", "part-a-2-00001.avro"),
                List.of("a-1", "a-2"), List.of("part-compact-i-1-00001.avro"), 20, 2_000, 1_900, 1_764_000_000_000L);
    }

    @Test
    void theCompactorsAddDecidesItFinishedWithItsRowsOutsideTheLogsDirectory() throws IOException {
        assertEquals(Optional.empty(), log.outcome("compact-i-1"));
        assertEquals(Outcome.FINISHED, log.finish("compact-i-1", List.of(row("day=1"), row("day=2"))));
        assertEquals(Outcome.FINISHED, log.finish("compact-i-1", List.of(row("day=1"), row("day=2"))),
                "tried again after its answer was lost");
        assertEquals(Outcome.FINISHED, log.undo("compact-i-1"), "a finder comes too late");
        assertEquals(Optional.of(Outcome.FINISHED), log.outcome("compact-i-1"));

        Partition partition = metastore.getPartition("db", "hive_sink_compactions", List.of("compact-i-1"))
                .orElseThrow();
        Path rows = new Path(partition.getSd().getLocation());
        String logDir = metastore.getTable("db", "hive_sink_compactions").orElseThrow().getSd().getLocation();
        assertFalse(rows.toString().contains(logDir), rows + " lies outside " + logDir);
        List<String> read = new ArrayList<>();
        try (DataFileStream<GenericRecord> in = new DataFileStream<>(fs.open(new Path(rows, "rows.avro")),
                new GenericDatumReader<>())) {
            in.forEach(r -> read.add(r.get("partition_name") + " " + r.get("replaced_batches") + " "
                    + r.get("record_count")));
        }
        assertEquals(List.of("day=1 [a-1, a-2] 20", "day=2 [a-1, a-2] 20"), read);
        assertFalse(fs.exists(new Path(rows.getParent(), "undone")) && fs.listStatus(new Path(rows.getParent(),
                "undone")).length > 0, "the late finder wrote no rows");
    }

    @Test
    void aFinderThatDecidesFirstUndoesItAndTheCompactorsAddIsRefused() {
        assertEquals(Outcome.UNDONE, log.undo("compact-i-2"));
        assertEquals(Outcome.UNDONE, log.finish("compact-i-2", List.of(row("day=1"))));
        assertEquals(Optional.of(Outcome.UNDONE), log.outcome("compact-i-2"));
        Partition partition = metastore.getPartition("db", "hive_sink_compactions", List.of("compact-i-2"))
                .orElseThrow();
        assertTrue(partition.getSd().getLocation().endsWith("/compaction_id=compact-i-2/undone"),
                partition.getSd().getLocation());
    }
}
