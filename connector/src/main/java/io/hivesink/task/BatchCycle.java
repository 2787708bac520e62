package io.hivesink.task;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.CloseReason;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.fs.StagedUploadLostException;

/**
 * Drives one task's batches through Connect's calls, from records taken to offsets reported. Records go into the
 * open batch ({@link BatchBuffer}); the {@link BatchCloser} closes it when it is due and sends it down the
 * {@link CommitPipeline}, which commits it; {@link Claims} takes ownership of assigned partitions, and
 * {@link ConsumerPositions} keeps what the consumer is to skip or read again. A bad record or fencing (another
 * instance runs the task) stops the cycle, after which nothing more is committed; partitions another task took are
 * dropped, and the task goes on with the others ({@link TakenPartitions}). A retriable failure has Connect call again
 * within a second; metastore refusals fail the task after the outage wait ({@link Refusals}); a task that cannot
 * commit for long while others wait on the memory it holds drops its batches ({@link MemoryGate}). Only offsets
 * committed in the metastore are reported to Kafka. Its calls run as whoever calls them: {@code HiveSinkTask} calls
 * them as the task's identity.
 */
public final class BatchCycle {

    private static final Logger log = LoggerFactory.getLogger(BatchCycle.class);
    /** After a retriable failure, Connect is asked to hand the records again this soon. */
    static final long RETRY_CALL_MS = 1_000;

    private final BatchBuffer buffer;
    private final BatchCloser closer;
    private final CommitPipeline pipeline;
    private final ConsumerPositions positions;
    private final Claims claims;
    /** Keeps the task's batches inside the worker's memory budget. */
    private final MemoryGate memory;
    /** Metastore refusals met in a row: retried for a while, then the task fails with the metastore's words. */
    private final Refusals refusals;
    /** Asks Connect to call the task again within this many milliseconds, records or not. */
    private final LongConsumer nextCallWithin;
    private final LongSupplier clock;
    private final IdlePartitions idle;
    private final KnownPartitions known;
    /** A bad record or fencing stopped the task: nothing more is committed. */
    private boolean stopped;
    /** Fencing met where Connect keeps the task running (its offset commit): the next delivery fails the task. */
    private TaskFencedException fenced;

    BatchCycle(BatchBuffer buffer, BatchCloser closer, CommitPipeline pipeline, ConsumerPositions positions,
            Claims claims, MemoryGate memory, LongConsumer nextCallWithin, LongSupplier clock, IdlePartitions idle,
            KnownPartitions known) {
        this.idle = idle;
        this.known = known;
        this.buffer = buffer;
        this.closer = closer;
        this.pipeline = pipeline;
        this.positions = positions;
        this.claims = claims;
        this.memory = memory;
        this.refusals = new Refusals(clock, claims.waitMs());
        this.nextCallWithin = nextCallWithin;
        this.clock = clock;
    }

    /**
     * Takes ownership of newly assigned partitions ({@link Claims}) and resumes them in the buffer at their committed
     * offsets, the metastore's word, not Kafka's: what the consumer delivers below them is skipped, and a consumer
     * that starts elsewhere is sought there ({@link ResumePoints}). A held batch is dropped, with the open one: the
     * claim may have rolled it forward, and the partitions it shares with the claim are read again anyway. If the
     * partitions cannot be claimed for now (the metastore is down), they are paused and claimed on a later call.
     */
    public void claim(Collection<TopicPartition> partitions) {
        failIfFenced();
        pipeline.settle();
        Claims.Claimed claimed = claims.claim(partitions);
        if (claimed == null) {
            buffer.forget(partitions);
        } else {
            resume(claimed);
            positions.claimed(claimed.partitions(), claimed.committed());
        }
        positions.seekDeferred(); // the partitions that were not closed are still assigned
        memory.opened(partitions);
    }

    /**
     * Fails the task if it was found fenced at Connect's offset commit, where Connect keeps it running: it neither
     * takes records nor claims partitions (a claim would take the task back from its live instance).
     */
    private void failIfFenced() {
        if (fenced != null) {
            throw new TaskFencedException(fenced.getMessage() + " (found at Connect's offset commit; the task stops "
                    + "here, since Connect keeps a task running after a failed offset commit)", fenced);
        }
    }

    private void resume(Claims.Claimed claimed) {
        buffer.forget(claimed.partitions());
        buffer.resumeAt(claimed.committed());
        if (pipeline.holdsBatch()) {
            pipeline.dropUncommitted("partitions " + claimed.partitions() + " were assigned while batch "
                    + pipeline.heldId() + " waited to be committed again", claimed.partitions());
        }
    }

    /**
     * Claims the partitions whose claim was put off, once its next try is due, and those another task took that
     * Connect still has assigned here long after ({@link TakenPartitions}); checks again the claims whose probation is
     * over, taking the records of those that held and claiming again those that were undone ({@link Probation}).
     */
    private void claimPostponedIfDue() {
        if (claims.postponedDue()) {
            pipeline.settle();
            resumeLate(claims.claimPostponed());
        }
        List<TopicPartition> again = claims.dueToClaimAgain();
        if (!again.isEmpty()) {
            pipeline.settle();
            resumeLate(claims.claim(again));
        }
        Claims.Rechecked rechecked = claims.recheckDue();
        if (rechecked != null) {
            Claims.Claimed passed = rechecked.passed();
            buffer.resumeAt(passed.committed()); // as claimed: nothing of them was taken meanwhile
            positions.claimedLate(passed.partitions(), passed.committed());
            if (!rechecked.claimAgain().isEmpty()) {
                pipeline.settle();
                resumeLate(claims.claim(rechecked.claimAgain()));
            }
        }
    }

    private void resumeLate(Claims.Claimed claimed) {
        if (claimed != null) {
            resume(claimed);
            positions.claimedLate(claimed.partitions(), claimed.committed());
        }
    }

    /** Takes records into the open batch, committing it when the flush policy says so. */
    public void take(Collection<SinkRecord> records) {
        failIfFenced();
        try {
            positions.deliveryStarts(claims.waiting());
            known.refreshIfDue(); // from the consumer's metadata: no round trip to the broker
            claimPostponedIfDue();
            positions.waiting(claims.waiting()); // a claim made just now may have put its partitions on probation
            pipeline.commitIfDone();
            Predicate<SinkRecord> ahead = buffer::isAhead;
            for (SinkRecord record : records) {
                if (!positions.takes(record, ahead)) {
                    continue;
                }
                boolean taken = buffer.add(record, clock.getAsLong());
                long nowMs = clock.getAsLong();
                if (taken) {
                    buffer.tookAt(nowMs);
                }
                closer.afterRecord(nowMs);
            }
            buffer.submitUnchunked(); // encode what came in while the consumer fetches more
            closer.afterDelivery();
            if (!pipeline.holdsBatch()) {
                idle.check(claims.waiting());
            }
            long dueInMs = Least.of(Least.of(memory.settle(), closer.msUntilDue()), claims.msUntilNextTry());
            if (dueInMs >= 0) {
                nextCallWithin.accept(Math.max(1, dueInMs));
            }
            positions.deliveryTaken();
            refusals.clear();
            memory.committed(); // nothing held failed: the task gives memory back by committing
        } catch (DataException | TaskFencedException | StagedUploadLostException e) {
            // The task stops; the offset commit that Connect still makes while closing must not try this batch again.
            stopped = true;
            throw e;
        } catch (RetriableException e) {
            try {
                refusals.failed(e);
            } catch (ConnectException stop) {
                stopped = true; // nothing more is committed
                throw stop;
            }
            memory.callFailed(e);
            String stuck = memory.stuckReason();
            if (stuck != null) {
                // others wait on the memory it holds: its records are read again once it can commit
                pipeline.dropUncommitted(stuck, Set.of());
            }
            nextCallWithin.accept(RETRY_CALL_MS); // Connect hands the records again then, not at its next offset commit
            throw e;
        }
    }

    /**
     * Commits a held batch (unless the cycle stopped), then answers Connect's offset commit with the offsets committed
     * in the metastore, for the partitions Connect asks about ({@link ConsumerPositions#toReport}). The open batch
     * stays open: batches are sized by the connector's limits, not by the worker's offset commits.
     */
    public Map<TopicPartition, OffsetAndMetadata> offsetsToCommit(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        // may be the offset commit before partitions close: a seek it asks for waits for the next delivery or claim
        return positions.deferringSeeks(() -> reportCommitted(currentOffsets));
    }

    private Map<TopicPartition, OffsetAndMetadata> reportCommitted(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (!stopped()) {
            positions.positionsReported(currentOffsets);
            try {
                pipeline.commitIfDone(); // a batch in flight is reported once it is committed, at a later call
            } catch (TaskFencedException e) {
                // thrown, Connect would log it, rewind the consumer and run on; the next delivery fails the task
                log.error("Batch found fenced at Connect's offset commit; the task stops: {}", e.getMessage());
                fenced = e;
            } catch (RetriableException e) {
                // thrown, it would make Connect log an error and rewind the consumer; the batch is held instead
                log.warn("Batch {} could not be committed at Connect's offset commit; it is held and committed on "
                        + "the next call: {}", pipeline.heldId(), e.getMessage());
            }
            if (!stopped()) { // a fenced instance removes nothing: its batch's intent may be durable
                claims.sweepAbandoned();
            }
        }
        return positions.toReport(currentOffsets, claims.committedOffsets());
    }

    /**
     * Partitions close (a rebalance, a stop): the held batch and the open one are committed while this task still
     * owns the partitions. If that fails, both are dropped: the closing partitions' next owner resumes from the
     * committed offsets, and the partitions that stay are read again from there.
     */
    public void close(Collection<TopicPartition> partitions) {
        // a drop rewinds the partitions that stay at the next delivery or claim: one may close first (lost, say)
        positions.deferringSeeks(() -> {
            commitOrDrop(partitions);
            return null;
        });
        buffer.forget(partitions);
        positions.closed(partitions);
        claims.closed(partitions);
    }

    private void commitOrDrop(Collection<TopicPartition> partitions) {
        if (!stopped() && (pipeline.holdsBatch() || !buffer.isEmpty())) {
            try {
                pipeline.commit();
                if (!buffer.isEmpty()) {
                    closer.close("partitions closing", CloseReason.PARTITIONS_CLOSED);
                    pipeline.commit(); // committed while the task still owns the partitions
                }
            } catch (DataException | TaskFencedException | StagedUploadLostException e) {
                stopped = true; // a bad record (errors.tolerance=none) or fencing: the task stops, as in put
                throw e;
            } catch (RuntimeException e) {
                log.warn("Could not commit before partitions {} close: {}", partitions, e.getMessage());
                pipeline.dropUncommitted("its commit failed while partitions " + partitions + " closed", partitions);
            }
        } else if (pipeline.holdsBatch() || !buffer.isEmpty()) {
            pipeline.dropUncommitted("the task stopped committing", partitions);
        }
    }

    /** Whether a bad record or fencing stopped the task: nothing more is committed. */
    private boolean stopped() {
        return stopped || pipeline.stopped();
    }

    /** Stops the commit lane, letting a commit in flight finish first. */
    void close() {
        pipeline.close();
    }
}
