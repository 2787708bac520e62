package io.hivesink.task;

import static io.hivesink.task.CycleRig.at;
import static io.hivesink.task.CycleRig.firstOfEach;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
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
 * A live task whose partitions Kafka's group gave to another task (a {@code max.poll.interval.ms} overrun, a lost
 * consumer session) drops what it held of them and goes on; and no seek is asked for a partition Connect is closing,
 * where its consumer would throw at its next poll ({@link RecordingContext#rewindAsConnect}). A newer instance of the
 * same task still stops the old one: {@code BatchCycleTest}'s fencing tests.
 */
class LostPartitionsTest {

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

    private static List<SinkRecord> records(TopicPartition tp, long from, long to) {
        return CycleRig.records(tp, from, to);
    }


    @Test
    void aBatchOfAPartitionAnotherTaskTookIsDroppedAndTheTaskGoesOnWithTheRest() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2);
        task.open(context.assign(P0, P1));
        task.put(records(P0, 0, 1));
        Task other = rig.start(1, new RecordingContext(), 2);
        other.open(List.of(P0)); // the group gave P0 to task 1; task 0's consumer hears of it at its next poll

        task.put(records(P0, 1, 2)); // the batch [P0 0, 1] closes and meets the claim: dropped, not fatal
        task.put(records(P1, 0, 2));
        task.put(records(P0, 2, 4)); // Connect has not closed P0 yet: its records are not taken
        assertEquals(Map.of(P1, at(2)), task.preCommit(Map.of(P0, at(4), P1, at(2))), "only P1 is reported");
        assertTrue(context.pauses.stream().anyMatch(paused -> paused.contains(P0)), "P0 waits, paused");
        task.close(List.of(P0)); // the consumer hears of the rebalance
        other.put(records(P0, 0, 4));
        task.put(records(P1, 2, 4));
        assertEquals(Map.of(P1, at(4)), task.preCommit(Map.of(P1, at(4))));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 2L, 3L, 3L), rig.landedIds(), "P0 by task 1, P1 by task 0, once each");
    }

    @Test
    void partitionsTakenByAnotherTaskAsTheyAreLostCloseWithoutFailingOrSeeking() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 10);
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 3));
        task.put(records(P1, 0, 2));
        Task other = rig.start(1, new RecordingContext(), 10);
        other.open(List.of(P0, P1));

        task.close(List.of(P0, P1)); // onPartitionsLost: no offset commit first; the open batch meets the claim
        assertEquals(List.of(), context.rewinds, "nothing sought: every partition closed");
        task.open(List.of(P1)); // a later rebalance gives P1 back to task 0
        other.close(List.of(P1));
        other.put(records(P0, 0, 3));
        other.close(List.of(P0));
        task.put(records(P1, 0, 2));
        task.close(List.of(P1));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L), rig.landedIds(), "each record once");
    }

    @Test
    void aPartitionTakenByALateClaimAndStillAssignedAMinuteLaterIsClaimedAgainAndReadFromWhereItWasDropped()
            throws IOException {
        AtomicLong now = new AtomicLong(1_000_000);
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2, now::get);
        task.open(context.assign(P0, P1));
        Task late = rig.start(1, new RecordingContext(), 2, now::get);
        late.open(List.of(P0)); // a claim task 1 made from an assignment it had lost already
        late.close(List.of(P0)); // its consumer hears of that; Kafka's group keeps P0 with task 0

        task.put(records(P0, 0, 2)); // refused: P0 is task 1's in the metastore
        task.put(records(P0, 2, 3)); // not taken: P0 waits for Connect to close it
        now.addAndGet(TakenPartitions.CLAIM_AGAIN_AFTER_MS);
        task.put(List.of()); // still assigned here: claimed again, and read again from 0 (nothing was committed)
        assertEquals(Map.of(P0, 0L), context.rewinds.get(context.rewinds.size() - 1));
        task.put(records(P0, 0, 4));
        assertEquals(Map.of(P0, at(4)), task.preCommit(Map.of(P0, at(4))));
        assertEquals(List.of(0L, 1L, 2L, 3L), rig.landedIds(), "each record once, none skipped");
    }

    /**
     * Closes the partition, then polls as Connect next does, where a seek of it would throw
     * ({@link RecordingContext#rewindAsConnect}); no seek was asked for since {@code rewindsBefore}.
     */
    private static void assertNoSeekWhenClosedAndPolled(Task task, RecordingContext context, int rewindsBefore,
            TopicPartition closing) {
        task.close(List.of(closing));
        task.put(List.of());
        assertEquals(rewindsBefore, context.rewinds.size(), "no seek of a partition that closed");
    }

    /**
     * Pipelined: P1, only in the open batch, is taken together with P0 of the batch in flight. The refusal of that
     * batch says P0; the state read with it says P1 is gone too: both wait, paused, and neither is sought (a seek of
     * P1 would have it read again here, only for its next batch to be refused in turn), and nothing more is written.
     */
    @Test
    void aPartitionOnlyInTheOpenBatchTakenWithTheBatchInFlightWaitsPausedAndUnsought() throws Exception {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, Map.of("batch.max.records", "2", "batch.pipelined", "true"),
                System::currentTimeMillis);
        task.open(context.assign(P0, P1));
        Task other = rig.start(1, new RecordingContext(), 10);
        AtomicBoolean once = new AtomicBoolean();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch openBatchFilled = new CountDownLatch(1);
        rig.metastore.beforeConditionalWriteCall = () -> {
            if (once.compareAndSet(false, true)) { // the commit in flight is about to record its intent
                other.open(List.of(P0, P1)); // the group gave both to task 1, which claims them
                claimed.countDown();
                try {
                    openBatchFilled.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        task.put(records(P0, 0, 2)); // [P0 0, 1] closes and is committed on the commit lane
        assertTrue(claimed.await(30, java.util.concurrent.TimeUnit.SECONDS));
        task.put(records(P1, 0, 1)); // into the open batch, while the commit waits
        openBatchFilled.countDown();
        int writes = rig.metastore.conditionalWrites;
        task.put(records(P1, 1, 2)); // closes [P1 0, 1]: the batch in flight is refused, and both are dropped
        assertEquals(Set.of(P0, P1), context.paused, "both wait, paused, for Connect to close them");
        assertEquals(List.of(), context.rewinds, "neither is sought");
        assertEquals(writes, rig.metastore.conditionalWrites, "nothing written after the refusal");
        task.close(List.of(P0, P1));
        other.put(records(P0, 0, 2));
        other.put(records(P1, 0, 2));
        other.close(List.of(P0, P1));
        assertEquals(List.of(0L, 0L, 1L, 1L), rig.landedIds(), "each record once, by task 1");
    }

    /**
     * A held batch whose intent is durable is rolled forward by a task that claims one of its partitions late (from
     * an assignment it had lost), which removes its staging: the retry here finds the manifest gone, reads its state
     * again, and takes the batch as landed instead of failing on the manifest at every call for good.
     */
    @Test
    void aHeldBatchAnotherTaskRolledForwardIsNotRetriedForEver() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2);
        task.open(context.assign(P0, P1));
        rig.metastore.failNextAddPartitions = true; // the intent is durable; the batch is not marked
        assertThrows(RetriableException.class, () -> task.put(firstOfEach()));
        Task other = rig.start(1, new RecordingContext(), 10);
        other.open(List.of(P1)); // rolls the batch forward, releases P1 in task 0's state, removes the staging
        other.close(List.of(P1));
        task.put(firstOfEach()); // Connect hands the same records again: no failure on the gone manifest
        assertEquals(Map.of(P0, at(1)), task.preCommit(Map.of(P0, at(1), P1, at(1))), "P0 landed to 1");
        task.put(records(P0, 1, 3));
        assertEquals(Map.of(P0, at(3)), task.preCommit(Map.of(P0, at(3), P1, at(1))));
        assertEquals(List.of(0L, 0L, 1L, 2L), rig.landedIds(), "each record once");
    }

    /**
     * As above, but the late claimer took only P2, a partition the held batch does not hold (a claim rolls forward
     * the intent of every state that owns any of its partitions): the batch is refused as out of sequence, its
     * partitions read again from the offsets it landed, each record once.
     */
    @Test
    void aHeldBatchRolledForwardByAClaimOfAnotherPartitionIsDroppedAsLandedAndReadOnFromItsEnd() throws IOException {
        TopicPartition p2 = new TopicPartition(P0.topic(), 2);
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2);
        task.open(context.assign(P0, P1, p2));
        rig.metastore.failNextAddPartitions = true;
        assertThrows(RetriableException.class, () -> task.put(firstOfEach()));
        Task other = rig.start(1, new RecordingContext(), 10);
        other.open(List.of(p2)); // rolls the batch forward and removes its staging; P0 and P1 stay task 0's
        task.put(firstOfEach()); // no failure: refused as landed, P0 and P1 read on from 1
        task.put(records(P0, 1, 3));
        task.put(records(P1, 1, 3));
        assertEquals(Map.of(P0, at(3), P1, at(3)), task.preCommit(Map.of(P0, at(3), P1, at(3))));
        assertEquals(Set.of(), context.paused, "nothing taken, nothing paused");
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 2L), rig.landedIds(), "each record once");
    }


    /**
     * Task 0 leaves a batch [P0 0, P1 0] whose intent is durable and drops it as P1 closes; the next batch of P0,
     * [0, 1], is held while rolling the first forward fails.
     */
    private Task heldBatchThatWillBeRefused(RecordingContext context) {
        Task task = rig.start(0, context, 2);
        task.open(List.of(P0, P1));
        rig.metastore.failNextAddPartitions = true; // the intent is durable; the batch is not marked
        assertThrows(RetriableException.class, () -> task.put(firstOfEach()));
        rig.metastore.failNextAddPartitions = true;
        task.close(List.of(P1)); // the held batch fails again and is dropped; P0 stays, read again from 0
        task.put(List.of()); // the seek of P0 waits for the next delivery
        rig.metastore.failNextAddPartitions = true;
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        return task;
    }

    @Test
    void aBatchRefusedAtTheOffsetCommitBeforeItsPartitionClosesSeeksNothing() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = heldBatchThatWillBeRefused(context);
        int rewinds = context.rewinds.size();
        // the first batch is rolled forward (P0 committed to 1), then the held one is refused as out of sequence
        assertEquals(Map.of(P0, at(1)), task.preCommit(Map.of(P0, at(2))));
        // that offset commit was the one Connect makes before it closes partitions
        assertNoSeekWhenClosedAndPolled(task, context, rewinds, P0);
        assertEquals(List.of(0L, 0L), rig.landedIds(), "the first batch, once");
    }

    @Test
    void aSeekFoundAtTheOffsetCommitIsMadeAtTheNextDelivery() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = heldBatchThatWillBeRefused(context);
        int rewinds = context.rewinds.size();
        task.preCommit(Map.of(P0, at(2)));
        assertEquals(rewinds, context.rewinds.size(), "not at the offset commit: partitions may close after it");
        task.put(records(P0, 2, 3)); // P0 stays: sought now; these records came before the seek and are stale
        assertEquals(Map.of(P0, 1L), context.rewinds.get(context.rewinds.size() - 1));
        task.put(records(P0, 1, 4));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 0L, 1L, 2L, 3L), rig.landedIds(), "each record once");
    }

    @Test
    void aBatchRefusedAsOutOfSequenceWhileItsPartitionClosesSeeksNothing() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 10);
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 1));
        task.put(records(P1, 0, 1));
        rig.metastore.failNextAddPartitions = true; // the batch's intent is durable; it is not marked
        task.close(List.of(P1)); // the batch [P0 0, P1 0] fails and is dropped; P0 stays, read again from 0
        task.put(List.of()); // the seek of P0 waits for the next delivery
        Task other = rig.start(1, new RecordingContext(), 10);
        other.open(List.of(P1)); // rolls the dropped batch forward: P0 is committed to 1
        task.put(records(P0, 0, 1));
        int rewinds = context.rewinds.size();
        // closing, the open batch [P0 0] is refused as out of sequence, and dropped
        assertNoSeekWhenClosedAndPolled(task, context, rewinds, P0);
        assertEquals(List.of(0L, 0L), rig.landedIds(), "the rolled-forward batch, once");
    }

    @Test
    void aSeekOfAPartitionThatStaysAsOthersCloseIsForgottenIfItClosesBeforeTheNextDelivery() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = rig.start(0, context, 2);
        task.open(List.of(P0, P1));
        rig.metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> task.put(firstOfEach())); // [P0 0, P1 0] is held
        rig.metastore.failNextConditionalWrite = true;
        task.close(List.of(P0)); // revoked: the held batch fails again and is dropped; P1 is to be read again
        task.close(List.of(P1)); // lost in the same poll (cooperative rebalancing), before any delivery
        task.put(List.of()); // Connect's next poll: a seek of P1 would throw there
        assertEquals(List.of(), context.rewinds, "no seek of a partition that closed");
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 2));
        task.put(records(P1, 0, 2));
        assertEquals(List.of(0L, 0L, 1L, 1L), rig.landedIds(), "each record once");
    }

    @Test
    void aPartitionAnotherTaskTakesWhileItsOffsetIsMovedToTheLogStartWaitsInsteadOfFailingTheTask()
            throws IOException {
        Task[] other = new Task[1];
        RecordingContext recreated = recreatedTopicClaimedByTask1At1stLook(other);
        Task task = rig.start(0, recreated, Map.of("batch.max.records", "2", "offsets.ahead.policy", "log-start"),
                System::currentTimeMillis);
        task.open(recreated.assign(P0)); // does not fail: P0 is taken, and waits
        assertTrue(recreated.pauses.stream().anyMatch(paused -> paused.contains(P0)), "P0 waits, paused");
        task.close(List.of(P0));
    }

    /**
     * As above, but the claim was put off first (the metastore away when P0 was assigned): taken as its postponed
     * claim is made, P0 waits, paused; still assigned a minute later, it is claimed again and read, with no pause of
     * the outage left on it.
     */
    @Test
    void aPartitionTakenAsItsPostponedClaimIsMadeIsReadOnceClaimedAgain() throws IOException {
        Task[] other = new Task[1];
        RecordingContext recreated = recreatedTopicClaimedByTask1At1stLook(other);
        AtomicLong now = new AtomicLong(1_000_000);
        Task task = rig.start(0, recreated, Map.of("batch.max.records", "2", "offsets.ahead.policy", "log-start"),
                now::get);
        rig.metastore.failingTableListings = 4; // each of the claim's tries reads the task states: put off
        task.open(recreated.assign(P0));
        assertEquals(Set.of(P0), recreated.paused, "P0 waits for its claim, paused");
        now.addAndGet(1_000);
        task.put(List.of()); // the postponed claim: task 1 claims P0 meanwhile, from an assignment it has lost
        assertEquals(Set.of(P0), recreated.paused, "P0 waits, paused: taken");
        now.addAndGet(TakenPartitions.CLAIM_AGAIN_AFTER_MS);
        task.put(List.of()); // still assigned here: claimed again
        assertEquals(Set.of(), recreated.paused, "P0 is read again");
        task.put(records(P0, 0, 2));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 3L), rig.landedIds(), "the log read again from its start, once");
    }

    /**
     * Task 0 committed P0 to 4, then the topic was created again with 2 records; at task 0's first look at P0's log,
     * the group gives P0 to task 1 ({@code other[0]}, started here), which claims it.
     */
    private RecordingContext recreatedTopicClaimedByTask1At1stLook(Task[] other) throws IOException {
        Task first = rig.start(0, new RecordingContext(), 2);
        first.open(List.of(P0));
        first.put(records(P0, 0, 4));
        first.close(List.of(P0)); // committed: 4
        first.stop();
        RecordingContext recreated = new RecordingContext();
        recreated.consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST) {
            private boolean claimed;

            @Override
            public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions,
                    Duration timeout) {
                if (!claimed) {
                    claimed = true;
                    other[0].open(List.of(P0));
                }
                return super.endOffsets(partitions, timeout);
            }
        };
        ((MockConsumer<byte[], byte[]>) recreated.consumer).updateBeginningOffsets(Map.of(P0, 0L));
        ((MockConsumer<byte[], byte[]>) recreated.consumer).updateEndOffsets(Map.of(P0, 2L));
        other[0] = rig.start(1, new RecordingContext(), Map.of("batch.max.records", "2", "offsets.ahead.policy",
                "log-start"), System::currentTimeMillis);
        return recreated;
    }
}
