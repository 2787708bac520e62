package io.hivesink.task;

import static io.hivesink.task.CycleRig.at;
import static io.hivesink.task.CycleRig.firstOfEach;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.task.CycleRig.RecordingContext;
import io.hivesink.task.CycleRig.Task;

/**
 * A batch whose intent is durable but whose staging is gone and which the ledger has not marked: what a write that
 * reached the metastore after its lock was broken leaves on Hive 3.1 (a claim removed the staging as abandoned, then
 * the intent landed). It cannot be finished, and it must not wedge the task, nor every restart of it: its intent is
 * dropped and its records read again, each landing once.
 */
class UnstagedIntentTest {

    private static final TopicPartition P0 = BatchCycleTest.P0;
    private static final TopicPartition P1 = BatchCycleTest.P1;

    @TempDir
    Path dir;
    private CycleRig rig;

    @BeforeEach
    void rig() {
        rig = new CycleRig(dir);
    }

    @AfterEach
    void stop() {
        rig.stopAll();
    }

    @Test
    void aHeldBatchWhoseStagingWentBeforeAnyOfItMovedIsDroppedAndReadAgain() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2);
        task.open(context.assign(P0, P1));
        intentDurableStagingGone(task);
        int rewinds = context.rewinds.size();

        task.put(firstOfEach()); // Connect hands the same records again: dropped, not retried for ever
        assertTrue(context.rewinds.size() > rewinds, "its partitions are read again from the committed offsets");
        assertEquals(List.of(), rig.landedIds());
        task.put(firstOfEach()); // read again
        assertEquals(Map.of(P0, at(1), P1, at(1)), task.preCommit(Map.of(P0, at(1), P1, at(1))));
        assertEquals(List.of(0L, 0L), rig.landedIds(), "each record once");
    }

    @Test
    void aNewRunOfTheTaskIsNotWedgedByItAndLandsEachRecordOnce() throws IOException {
        Task task = rig.start(0, new RecordingContext(), 2);
        task.open(List.of(P0, P1));
        intentDurableStagingGone(task);
        task.stop(); // the instance is gone; its intent stays

        RecordingContext context = new RecordingContext();
        Task next = rig.start(0, context, 2);
        next.open(context.assign(P0, P1)); // the claim rolls the intent forward: given up, not retried for ever
        next.put(firstOfEach());
        assertEquals(Map.of(P0, at(1), P1, at(1)), next.preCommit(Map.of(P0, at(1), P1, at(1))));
        assertEquals(List.of(0L, 0L), rig.landedIds(), "each record once");
    }

    @Test
    void anotherTaskThatClaimsOneOfItsPartitionsIsNotWedgedByIt() throws IOException {
        Task task = rig.start(0, new RecordingContext(), 2);
        task.open(List.of(P0, P1));
        intentDurableStagingGone(task);

        RecordingContext context = new RecordingContext();
        Task other = rig.start(1, context, 2);
        other.open(context.assign(P1)); // rolls task 0's intent forward: given up, and P1 claimed from nothing
        other.put(records(P1, 0, 2));
        assertEquals(Map.of(P1, at(2)), other.preCommit(Map.of(P1, at(2))));
        assertEquals(List.of(0L, 1L), rig.landedIds(), "P1's records once; none of the given-up batch");
    }

    /**
     * Task 0 makes the intent of [P0 0, P1 0] durable, its moves fail (a file stands where the table's directory
     * goes), then its staging directory goes, as a claim that took it for abandoned removes it.
     */
    private void intentDurableStagingGone(Task task) throws IOException {
        Path table = dir.resolve("warehouse").resolve("sink.db").resolve("events");
        CycleRig.deleteTree(table);
        Files.createDirectories(table.getParent());
        Files.writeString(table, "not a directory");
        assertThrows(RetriableException.class, () -> task.put(firstOfEach()));
        Files.delete(table);
        Files.createDirectory(table);
        List<Path> manifests;
        try (Stream<Path> files = Files.walk(dir)) {
            manifests = files.filter(f -> f.getFileName().toString().equals("_manifest.avro")).toList();
        }
        assertEquals(1, manifests.size(), "the batch is staged: " + manifests);
        CycleRig.deleteTree(manifests.get(0).getParent());
        assertEquals(List.of(), rig.landedIds(), "nothing of it moved");
    }


    private static List<SinkRecord> records(TopicPartition tp, long from, long to) {
        return CycleRig.records(tp, from, to);
    }


}
