package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.TaskFencedException;
import io.hivesink.commit.TaskState;
import io.hivesink.metastore.InMemoryMetastore;

/**
 * A partition that has landed everything its log holds for partition.done.idle.ms has the wall clock recorded as
 * its event time, so that it holds no watermark back; one with records still to land, or waiting, does not. The
 * logs' ends are the one faked seam: the broker's answer.
 */
class IdlePartitionsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final TopicPartition P1 = new TopicPartition("events", 1);
    private static final TopicPartition P2 = new TopicPartition("events", 2);
    private static final long START = 1_795_000_000_000L;
    private static final long IDLE_MS = 10_000;

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private final AtomicLong now = new AtomicLong(START);
    private final Map<TopicPartition, LogOffsets.LogRange> logs = new HashMap<>();
    private PartsRig rig;

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, metastore, now::get);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private static long eventTime(TaskParts parts, TopicPartition tp) {
        return parts.metastore().states().read(parts.run().task()).state().partitions().get(tp).eventTime();
    }

    @Test
    void caughtUpForTheIdleTimeThePartitionsTakeTheWallClockAndTheWatermarkMoves() {
        TaskParts parts = rig.task(0, Map.of("partitioner", "time", "partition.done.lateness.ms", "1000"));
        parts.committer().claim(List.of(P0, P1, P2));
        WatermarkUpdates watermarks = new WatermarkUpdates(parts.watermarks(), parts.committer(), now::get, 0);
        CommitPipeline pipeline = rig.pipeline(parts, null);
        rig.takeStamped(parts, P0, 0, START - 60_000, START - 50_000, START - 40_000);
        pipeline.send(parts.buffer().drain(), 1, "test");
        assertEquals(START - 40_000, eventTime(parts, P0));
        logs.put(P0, new LogOffsets.LogRange(0, 3)); // all landed
        logs.put(P1, new LogOffsets.LogRange(5, 5)); // never committed, its log empty (retention deleted it all)
        logs.put(P2, new LogOffsets.LogRange(0, 2)); // never committed, two records to land
        IdlePartitions idle = new IdlePartitions(IDLE_MS, tps -> Map.copyOf(logs),
                parts.committer(), watermarks, now::get);

        now.addAndGet(5_000);
        idle.check(Set.of()); // first seen caught up
        now.addAndGet(5_000);
        idle.check(Set.of());
        assertEquals(START - 40_000, eventTime(parts, P0), "caught up for 5 s of the 10");
        now.addAndGet(5_000);
        idle.check(Set.of());
        assertEquals(START + 15_000, eventTime(parts, P0), "caught up for 10 s: the clock read before the logs");
        assertEquals(START + 15_000, eventTime(parts, P1), "an empty log is caught up");
        assertEquals(TaskState.PartitionState.NO_TIME, eventTime(parts, P2), "records to land: held back");

        logs.put(P2, new LogOffsets.LogRange(2, 2)); // its records deleted before it read them: nothing to land
        logs.put(P0, new LogOffsets.LogRange(0, 4)); // a record arrives
        for (int i = 0; i < 4; i++) {
            now.addAndGet(5_000);
            idle.check(Set.of());
        }
        assertEquals(START + 15_000, eventTime(parts, P0), "not caught up since");
        assertEquals(START + 35_000, eventTime(parts, P1), "recorded again once per idle time");
        assertEquals(START + 30_000, eventTime(parts, P2), "caught up from the check at +20 s, due 10 s later");
        assertEquals(START + 15_000 - 1_000, parts.watermarks().of("events"), "the least, P0's, less the lateness");
    }

    @Test
    void waitingPartitionsAndAnIdleTimeOfZeroRecordNothingAndAFencedTaskStops() {
        TaskParts parts = rig.task(0);
        parts.committer().claim(List.of(P0, P1));
        WatermarkUpdates watermarks = new WatermarkUpdates(parts.watermarks(), parts.committer(), now::get, 0);
        logs.put(P0, new LogOffsets.LogRange(0, 0));
        logs.put(P1, new LogOffsets.LogRange(0, 0));
        IdlePartitions never = new IdlePartitions(0, tps -> Map.copyOf(logs), parts.committer(), watermarks,
                now::get);
        IdlePartitions idle = new IdlePartitions(IDLE_MS, tps -> Map.copyOf(logs), parts.committer(), watermarks,
                now::get);
        for (int i = 0; i < 3; i++) {
            now.addAndGet(5_000);
            never.check(Set.of());
            idle.check(Set.of(P1));
        }
        assertEquals(START + 15_000, eventTime(parts, P0));
        assertEquals(TaskState.PartitionState.NO_TIME, eventTime(parts, P1), "waiting: left out");

        rig.task(0).committer().claim(List.of(P0, P1)); // another instance of task 0 takes over
        now.addAndGet(IDLE_MS); // P0 due again: its write finds the task fenced
        assertThrows(TaskFencedException.class, () -> idle.check(Set.of()));
    }
}
