package io.hivesink.task;

import static io.hivesink.task.CycleRig.records;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.StateLocksAccess;
import io.hivesink.task.CycleRig.RecordingContext;
import io.hivesink.task.CycleRig.Task;

/**
 * A task that claimed partitions from a state whose lock it broke (Hive 3.1's locks) takes none of their records until
 * its claim is checked a bound later ({@link Probation}): a write the lock's holder sent before may still land, put the
 * partitions back in its state with an intent for a batch of them, and that batch would land beside the same records
 * read again from the committed offsets.
 */
class ProbationTest {

    private static final TopicPartition P0 = BatchCycleTest.P0;
    private static final Map<String, String> LOCKED = Map.of("batch.max.records", "2",
            "hive.metastore.lock.stale.ms", "1000");

    @TempDir
    Path dir;
    private CycleRig rig;
    private final AtomicLong now = new AtomicLong(System.currentTimeMillis());

    @BeforeEach
    void rig() {
        rig = new CycleRig(dir);
        rig.metastore.ignoreCompareAndSet = true; // as Hive 3.1: locks fence the states
    }

    @AfterEach
    void stop() {
        rig.stopAll();
    }

    @Test
    void aClaimUndoneByALateIntentTakesNoRecordAndIsClaimedAgainSoNothingLandsTwice() throws Exception {
        Map<String, String> withIntent = zombieWithLateIntent(); // task 1: [0, 2) landed, [2, 4) intent under way
        RecordingContext context = new RecordingContext();
        Task live = rig.start(0, context, LOCKED, now::get);
        live.open(context.assign(P0)); // breaks the zombie's lock, releases P0 in its state, claims it at 2
        assertTrue(context.paused.contains(P0), "on probation, paused");

        StateLocksAccess.putParameters(rig.metastore, "task_test", 1, withIntent); // the late write lands
        live.put(records(P0, 2, 6));
        assertEquals(List.of(0L, 1L), rig.landedIds(), "nothing of P0 taken while on probation");

        now.addAndGet(1_000); // the term is over: the next call checks the claim, finds it undone, claims again
        live.put(records(P0, 2, 6));
        live.put(records(P0, 4, 6)); // read again from where the claim resumes
        assertEquals(ids(6), rig.landedIds(), "the late intent's batch rolled forward once, the rest after it");
        assertTrue(!context.paused.contains(P0));

        live.close(List.of(P0)); // a rebalance brings it back: nothing more to roll forward
        live.open(List.of(P0));
        live.put(records(P0, 6, 8));
        assertEquals(ids(8), rig.landedIds());
    }

    @Test
    void aClaimThatHeldThroughItsProbationTakesRecordsFromTheCommittedOffsets() throws Exception {
        zombieWithLateIntent(); // its intent never lands: the write failed after all
        RecordingContext context = new RecordingContext();
        Task live = rig.start(0, context, LOCKED, now::get);
        live.open(context.assign(P0));
        live.put(records(P0, 2, 4));
        assertEquals(List.of(0L, 1L), rig.landedIds());
        assertTrue(context.timeouts.stream().anyMatch(ms -> ms <= 1_000), "asks to be called when the term ends");

        now.addAndGet(1_000);
        live.put(records(P0, 2, 4)); // checked: it held
        assertTrue(!context.paused.contains(P0), "resumed");
        live.put(records(P0, 4, 6));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), rig.landedIds());
    }

    @Test
    void aPostponedClaimMadeDuringADeliveryLetsNoneOfItsRecordsThroughOnProbation() throws Exception {
        zombieWithLateIntent();
        RecordingContext context = new RecordingContext();
        Task live = rig.start(0, context, LOCKED, now::get);
        rig.metastore.failingTableListings = 100; // the metastore restarts as the partition is assigned
        live.open(context.assign(P0));
        assertTrue(context.paused.contains(P0), "the claim is put off");
        rig.metastore.failingTableListings = 0;

        now.addAndGet(1_000);
        live.put(records(P0, 2, 6)); // fetched before the pause: the put-off claim is made during this delivery
        assertTrue(context.paused.contains(P0), "claimed, and on probation");
        assertEquals(List.of(0L, 1L), rig.landedIds(), "none of this delivery's records of it taken");
    }

    @Test
    void aNewerInstanceFoundAtTheCheckStopsThisOne() throws Exception {
        zombieWithLateIntent();
        Task live = rig.start(0, new RecordingContext(), LOCKED, now::get);
        RecordingContext context = new RecordingContext();
        live.initialize(context);
        live.open(context.assign(P0));
        Task newer = rig.start(0, new RecordingContext(), LOCKED, now::get);
        newer.open(List.of(P0));

        now.addAndGet(1_000);
        assertThrows(io.hivesink.commit.TaskFencedException.class, () -> live.put(records(P0, 2, 4)));
    }

    /**
     * Task 1's instance lands [0, 2) of P0, then stops inside the commit of [2, 4) with its lock held and silent;
     * its intent's write is still under way: its state is put back as before it, and returned as it will land.
     */
    private Map<String, String> zombieWithLateIntent() throws IOException {
        FaultPoint[] crashAt = {null};
        TaskParts zombie = TaskParts.build(rig.props(1, LOCKED), FileSystem.getLocal(
                new Configuration()), rig.metastore, ForkJoinPool.commonPool(), point -> {
                    if (point == crashAt[0]) {
                        throw new IllegalStateException("the worker stops here");
                    }
                }, now::get);
        assertEquals(Fencing.LOCKS, zombie.committer().start(Fencing.AUTO));
        zombie.committer().claim(List.of(P0));
        feed(zombie, 0, 2);
        zombie.committer().commit(zombie.buffer().drain());
        Map<String, String> before = StateLocksAccess.parameters(rig.metastore, "task_test", 1);
        feed(zombie, 2, 4);
        crashAt[0] = FaultPoint.INTENT_DURABLE;
        assertThrows(IllegalStateException.class, () -> zombie.committer().commit(zombie.buffer().drain()));
        Map<String, String> withIntent = StateLocksAccess.parameters(rig.metastore, "task_test", 1);
        StateLocksAccess.putParameters(rig.metastore, "task_test", 1, before);
        StateLocksAccess.silentLock(rig.metastore, "task_test", 1, zombie.run().instance());
        return withIntent;
    }

    private void feed(TaskParts parts, long from, long to) {
        for (SinkRecord record : records(P0, from, to)) {
            parts.buffer().add(record, now.get());
        }
    }

    private static List<Long> ids(long end) {
        return LongStream.range(0, end).boxed().toList();
    }
}
