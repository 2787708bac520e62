package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.TaskFencedException;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.security.TaskIdentity;

/**
 * The closed batch from its close to its commit or drop: committed on the task's thread or on the lane, held after a
 * retriable failure, dropped with the open batch and read again from the committed offsets, discarded when fenced.
 */
class CommitPipelineTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private PartsRig rig;

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, metastore, System::currentTimeMillis);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private TaskParts claimed(int taskId) {
        TaskParts parts = rig.task(taskId);
        parts.committer().claim(List.of(P0));
        return parts;
    }

    @Test
    void aBatchSentOnTheTasksThreadIsCommittedThereAndLetGo() {
        TaskParts parts = claimed(0);
        CommitPipeline pipeline = rig.pipeline(parts, null);
        rig.take(parts, P0, 0, 3);
        pipeline.send(parts.buffer().drain(), 5, "test");
        assertFalse(pipeline.holdsBatch());
        assertEquals(Map.of(P0, 3L), parts.committer().committedOffsets());
    }

    @Test
    void aBatchWhoseCommitFailsRetriablyIsHeldAndCommittedByTheNextCommit() {
        TaskParts parts = claimed(0);
        CommitPipeline pipeline = rig.pipeline(parts, null);
        rig.take(parts, P0, 0, 2);
        metastore.failNextConditionalWrite = true; // the intent's write: before anything is durable
        assertThrows(RetriableException.class, () -> pipeline.send(parts.buffer().drain(), 5, "test"));
        assertTrue(pipeline.holdsBatch(), "held, to be committed before anything else");
        assertEquals(Map.of(), parts.committer().committedOffsets());

        pipeline.commit();
        assertFalse(pipeline.holdsBatch());
        assertEquals(Map.of(P0, 2L), parts.committer().committedOffsets());
    }

    @Test
    void pipelinedTheBatchCommitsOnTheLaneAndItsOutcomeIsTakenWhenSettled() {
        TaskParts parts = claimed(0);
        CommitPipeline pipeline = rig.pipeline(parts, new CommitLane("conn-0", TaskIdentity.WORKER));
        try {
            rig.take(parts, P0, 0, 4);
            pipeline.send(parts.buffer().drain(), 5, "test");
            assertTrue(pipeline.holdsBatch(), "in flight until its outcome is taken on the task's thread");
            rig.take(parts, P0, 4, 5); // the next batch fills meanwhile
            pipeline.settle();
            assertFalse(pipeline.holdsBatch());
            assertEquals(Map.of(P0, 4L), parts.committer().committedOffsets());
            assertEquals(1, parts.buffer().recordCount(), "the open batch is left alone");
        } finally {
            pipeline.close();
        }
    }

    @Test
    void droppingReadsTheHeldAndTheOpenBatchAgainFromTheCommittedOffset() {
        TaskParts parts = claimed(0);
        CommitPipeline pipeline = rig.pipeline(parts, null);
        rig.take(parts, P0, 0, 2);
        pipeline.send(parts.buffer().drain(), 5, "test");
        rig.take(parts, P0, 2, 4);
        metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> pipeline.send(parts.buffer().drain(), 5, "test"));
        rig.take(parts, P0, 4, 5);

        pipeline.dropUncommitted("the test drops them", Set.of());
        assertFalse(pipeline.holdsBatch());
        assertTrue(parts.buffer().isEmpty());
        assertEquals(List.of(Map.of(P0, 2L)), rig.seeks, "read again from the offset committed in the metastore");
        assertEquals(Map.of(P0, 2L), parts.committer().committedOffsets());
    }

    @Test
    void aDropThatFindsTheBatchInFlightFencedStopsTheTaskInsteadOfDroppingOn() {
        TaskParts zombie = claimed(0);
        CommitPipeline pipeline = rig.pipeline(zombie, new CommitLane("conn-0", TaskIdentity.WORKER));
        try {
            claimed(0); // a new instance of the task claims P0 while the old one's batch is on the lane
            rig.take(zombie, P0, 0, 2);
            pipeline.send(zombie.buffer().drain(), 5, "test");
            assertThrows(TaskFencedException.class, () -> pipeline.dropUncommitted("memory is stuck", Set.of()),
                    "not swallowed: a lock broken mid-write may have given the task back to this instance");
            assertTrue(pipeline.stopped(), "nothing more is committed");
        } finally {
            pipeline.close();
        }
    }

    @Test
    void aFencedCommitDiscardsBothBatchesAndStopsThePipeline() {
        TaskParts zombie = claimed(0);
        CommitPipeline pipeline = rig.pipeline(zombie, null);
        claimed(0); // a new instance of the task claims P0: the old one is fenced
        rig.take(zombie, P0, 0, 2);
        TaskFencedException fenced = assertThrows(TaskFencedException.class,
                () -> pipeline.send(zombie.buffer().drain(), 5, "test"));
        assertTrue(fenced.getMessage().contains("fenced"), fenced.getMessage());
        assertTrue(pipeline.stopped(), "nothing more is committed");
        assertFalse(pipeline.holdsBatch());
        assertTrue(zombie.buffer().isEmpty());
    }
}
