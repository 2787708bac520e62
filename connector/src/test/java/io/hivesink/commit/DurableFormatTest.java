package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.metastore.InMemoryMetastore;

/**
 * Every durable format carries its version; one written before versions existed still reads; one in a version this
 * release does not know is refused with a message that says what and why, never misread.
 */
class DurableFormatTest {

    @TempDir
    java.nio.file.Path dir;

    private static final TopicPartition TP = new TopicPartition("events", 2);

    @Test
    void aManifestCarriesItsVersionAndAnUnknownOneIsRefused() throws IOException {
        FileSystem fs = FileSystem.getLocal(new Configuration());
        Path path = new Path(dir.resolve("_manifest.avro").toString());
        Manifest manifest = new Manifest("b-1", List.of(), new Manifest.StagedFile("hive_sink_ledger",
                List.of("b-1"), new Path("/staged/ledger.avro"), new Path("/ledger/batch_id=b-1/ledger.avro")),
                Map.of(TP, 10L));
        manifest.write(fs, path);
        assertEquals(manifest, Manifest.read(fs, path));

        Path newer = new Path(dir.resolve("_newer.avro").toString());
        try (FSDataOutputStream out = fs.create(newer, true);
                DataFileWriter<GenericRecord> writer = new DataFileWriter<>(
                        new GenericDatumWriter<>(Manifest.SCHEMA))) {
            writer.setMeta(DurableFormat.MANIFEST.key(), "2");
            writer.create(Manifest.SCHEMA, out);
        }
        ConnectException e = assertThrows(ConnectException.class, () -> Manifest.read(fs, newer));
        assertEquals("The manifest " + newer + " is in format version 2 (hive-sink.manifest.format), which this "
                + "hive-sink release does not read: it reads version 1 only. A newer hive-sink release wrote it; run "
                + "that release (or a newer one) again. hive-sink cannot go back to an older release while the "
                + "metastore holds state in a newer format.", e.getMessage());
    }

    @Test
    void aTaskStateCarriesItsVersionAndAnUnknownOneIsRefused() {
        Map<String, String> params = new HashMap<>();
        StateParameters.encode(TaskState.EMPTY.claimed("conn-t3-x", List.of(TP), Map.of(TP, 7L)), params);
        assertEquals("1", params.get("hive-sink.state.format"));

        Map<String, String> unversioned = new HashMap<>(params);
        unversioned.remove("hive-sink.state.format");
        assertEquals(Map.of(TP, new TaskState.PartitionState(7L, true)),
                StateParameters.decode(3, table(unversioned)).state().partitions(), "written before versions: read");

        params.put("hive-sink.state.format", "3");
        ConnectException e = assertThrows(ConnectException.class, () -> StateParameters.decode(3, table(params)));
        assertEquals("The task state of task 3 in table shop.hive_sink_state_conn_3 is in format version 3 "
                + "(hive-sink.state.format), which this hive-sink release does not read: it reads versions 1 to 2. "
                + "A newer hive-sink release wrote it; run that release (or a newer one) again. hive-sink cannot go "
                + "back to an older release while the metastore holds state in a newer format.", e.getMessage());
    }

    @Test
    void aTaskStateWithHoldsIsOfALaterVersionThatOlderReleasesRefuse() {
        TaskState.Hold held = new TaskState.Hold("orders", "day=2026-11-29", "compact-x-1", null);
        TaskState.Hold moved = new TaskState.Hold("customers", "", "compact-x-2", "hdfs://nn/w/partitions_of_c/g",
                1_764_000_000_000L);
        TaskState state = TaskState.EMPTY.claimed("conn-t3-x", List.of(TP), Map.of(TP, 7L)).withHold(held)
                .withHold(moved);
        Map<String, String> params = new HashMap<>();
        StateParameters.encode(state, params);
        assertEquals("2", params.get("hive-sink.state.format"), "a release that ignores holds must not read it");
        TaskState read = StateParameters.decode(3, table(params)).state();
        assertEquals(state, read);
        assertEquals(held, read.holdOn("orders", "day=2026-11-29"));
        assertEquals(moved, read.holdOn("customers", ""));

        // once its holds are released, the state is readable by the release before holds again
        StateParameters.encode(read.withoutHold("orders", "day=2026-11-29", "compact-x-1")
                .withoutHold("customers", "", "compact-x-2"), params);
        assertEquals("1", params.get("hive-sink.state.format"));
        assertEquals(List.of(), StateParameters.decode(3, table(params)).state().holds());
        assertTrue(params.keySet().stream().noneMatch(k -> k.startsWith("hive-sink.holds")), params.toString());
    }

    @Test
    void aTaskStateKeepsEachPartitionsEventTimeInTheSameVersionReadableBothWays() {
        TopicPartition other = new TopicPartition("events", 5);
        TaskState state = TaskState.EMPTY.claimed("conn-t3-x", List.of(TP, other), Map.of(TP, 7L))
                .completed("b-1", Map.of(TP, 9L, other, 4L), Map.of(TP, 1_795_000_000_000L));
        Map<String, String> params = new HashMap<>();
        StateParameters.encode(state, params);
        assertEquals("1", params.get("hive-sink.state.format"), "an added field, not a new version");
        assertEquals(List.of("events\t2\t9\towned\t1795000000000", "events\t5\t4\towned"),
                ParameterLines.get(params, "hive-sink.offsets"), "no time known: the line as it always was");
        assertEquals(state.partitions(), StateParameters.decode(3, table(params)).state().partitions());

        // what a release before event times reads of it: the first four fields, as it always did
        for (String line : ParameterLines.get(params, "hive-sink.offsets")) {
            String[] f = line.split("\t", -1);
            assertEquals("owned", f[3]);
        }
        // and a state that release wrote (and wrote back) reads with no event time, not as a failure
        Map<String, String> older = new HashMap<>(params);
        ParameterLines.put(older, "hive-sink.offsets", List.of("events\t2\t9\towned", "events\t5\t4\treleased"));
        assertEquals(Map.of(TP, new TaskState.PartitionState(9L, true, TaskState.PartitionState.NO_TIME),
                other, new TaskState.PartitionState(4L, false)),
                StateParameters.decode(3, table(older)).state().partitions());
    }

    @Test
    void anEventTimeNeverGoesBackOutlivesAReleaseAndIsForgottenByAMoveOrAClaim() {
        TaskState state = TaskState.EMPTY.claimed("i1", List.of(TP), Map.of())
                .completed("b-1", Map.of(TP, 10L), Map.of(TP, 5_000L))
                .completed("b-2", Map.of(TP, 20L), Map.of(TP, 4_000L)); // disorder across batches
        assertEquals(5_000L, state.partitions().get(TP).eventTime());
        assertEquals(5_000L, state.completed("b-3", Map.of(TP, 30L)).partitions().get(TP).eventTime(),
                "a batch without event times");
        assertEquals(5_000L, state.released(List.of(TP)).partitions().get(TP).eventTime());
        assertEquals(TaskState.PartitionState.NO_TIME, state.movedTo(Map.of(TP, 3L)).partitions().get(TP)
                .eventTime(), "moved to another log (a topic created again): its times are not of that log");
        assertEquals(TaskState.PartitionState.NO_TIME, state.released(List.of(TP))
                .claimed("i2", List.of(TP), Map.of(TP, 40L)).partitions().get(TP).eventTime(),
                "claimed again: a time from an earlier ownership may be of a log replaced since");
        assertEquals(7_000L, state.caughtUp(List.of(TP), 7_000L).partitions().get(TP).eventTime());
        assertEquals(5_000L, state.caughtUp(List.of(TP), 4_000L).partitions().get(TP).eventTime(), "never back");
        assertEquals(5_000L, state.released(List.of(TP)).caughtUp(List.of(TP), 7_000L).partitions().get(TP)
                .eventTime(), "only partitions it owns");
        assertEquals(TaskState.PartitionState.NO_TIME, TaskState.EMPTY.claimed("i1", List.of(TP), Map.of())
                .partitions().get(TP).eventTime());
    }

    @Test
    void aLedgerMarkerCarriesItsVersionAndAnUnknownOneIsRefused() {
        InMemoryMetastore metastore = new InMemoryMetastore();
        Ledger ledger = new Ledger(new io.hivesink.metastore.HiveTables(metastore, "shop", "file:/warehouse",
                table -> io.hivesink.config.TableConfig.of(Map.of(), null)),
                metastore, "hive_sink_ledger");
        ledger.mark("b-9", Map.of(TP, 42L));
        Partition marker = metastore.getPartition("shop", "hive_sink_ledger", List.of("b-9")).orElseThrow();
        assertEquals("1", marker.getParameters().get("hive-sink.ledger.format"));
        assertEquals(Map.of(TP, 42L), Ledger.markedOffsetsOf(marker));

        marker.getParameters().put("hive-sink.ledger.format", "7");
        ConnectException e = assertThrows(ConnectException.class, () -> Ledger.markedOffsetsOf(marker));
        assertEquals("The ledger marker of batch b-9 in table shop.hive_sink_ledger is in format version 7 "
                + "(hive-sink.ledger.format), which this hive-sink release does not read: it reads version 1 only. "
                + "A newer hive-sink release wrote it; run that release (or a newer one) again. hive-sink cannot go "
                + "back to an older release while the metastore holds state in a newer format.", e.getMessage());
    }

    private static Table table(Map<String, String> params) {
        Table table = new Table();
        table.setDbName("shop");
        table.setTableName("hive_sink_state_conn_3");
        table.setParameters(params);
        return table;
    }
}
