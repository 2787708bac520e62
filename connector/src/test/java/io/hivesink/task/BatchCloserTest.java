package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.batch.FlushPolicy;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.metrics.TaskMetrics;

/** When the open batch closes: at the flush policy's limits, on time without records, early for the memory budget. */
class BatchCloserTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_000_000);
    private PartsRig rig;

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private TaskParts claimed() {
        rig = new PartsRig(dir, new InMemoryMetastore(), now::get);
        TaskParts parts = rig.task(0);
        parts.committer().claim(List.of(P0));
        return parts;
    }

    private BatchCloser closer(TaskParts parts, FlushPolicy policy, long budgetBytes) {
        MemoryGate memory = rig.memory(parts, budgetBytes);
        TaskMetrics metrics = rig.metrics(parts);
        return new BatchCloser(parts.buffer(), policy, rig.pipeline(parts, null, memory, metrics), memory, metrics,
                now::get);
    }

    @Test
    void theBatchClosesWithTheRecordThatReachesItsLimit() {
        TaskParts parts = claimed();
        BatchCloser closer = closer(parts, new FlushPolicy(3, Long.MAX_VALUE, Long.MAX_VALUE, 0, Map.of()), 0);
        for (long offset = 0; offset < 5; offset++) {
            rig.take(parts, P0, offset, offset + 1);
            closer.afterRecord(now.get());
        }
        assertEquals(Map.of(P0, 3L), parts.committer().committedOffsets());
        assertEquals(2, parts.buffer().recordCount(), "the next batch holds the rest");
    }

    @Test
    void aBatchClosesWhenItsIntervalIsUpThoughNoRecordCame() {
        TaskParts parts = claimed();
        BatchCloser closer = closer(parts, new FlushPolicy(1_000, Long.MAX_VALUE, 10_000, 0, Map.of()), 0);
        rig.take(parts, P0, 0, 2);
        closer.afterRecord(now.get());
        now.addAndGet(4_000);
        closer.afterDelivery();
        assertEquals(Map.of(), parts.committer().committedOffsets(), "not due yet");
        assertEquals(6_000, closer.msUntilDue(), "Connect is asked to call again by then");

        now.addAndGet(6_000);
        closer.afterDelivery();
        assertEquals(Map.of(P0, 2L), parts.committer().committedOffsets());
        assertTrue(parts.buffer().isEmpty());
    }

    @Test
    void aTaskThatFillsTheMemoryBudgetClosesItsBatchEarly() {
        TaskParts parts = claimed();
        BatchCloser closer = closer(parts, new FlushPolicy(1_000_000, Long.MAX_VALUE, Long.MAX_VALUE, 0, Map.of()),
                20_000);
        for (long offset = 0; offset < 2_000 && parts.committer().committedOffsets().isEmpty(); offset++) {
            rig.take(parts, P0, offset, offset + 1);
            parts.buffer().submitUnchunked();
            closer.afterRecord(now.get());
        }
        long committed = parts.committer().committedOffsets().getOrDefault(P0, 0L);
        assertTrue(committed > 0 && committed < 2_000, "closed early, at " + committed + " records");
    }
}
