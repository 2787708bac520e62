package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.CloseReason;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.batch.MemoryBudget;
import io.hivesink.batch.RecordGroup;
import io.hivesink.commit.BatchOutOfSequenceException;
import io.hivesink.commit.ClaimNotPossibleYetException;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.fs.StorageUnavailableException;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metrics.TaskMetrics;
import io.hivesink.security.TaskIdentity;

/**
 * One task's batches from records taken to batches committed: records go into the open batch, which closes when the
 * flush policy says so (records, bytes, interval or idle time: the task asks Connect to call it again before either
 * is up, records or not), when the worker's memory budget is full and this task holds the most ({@link MemoryGate},
 * which otherwise holds the task back while the budget is full), or when its partitions close (not when Connect
 * commits offsets: that reports what the metastore holds), and goes to the committer. A batch
 * whose commit failed with a retriable error is held and committed before anything else happens, unless its
 * partitions move first: then it
 * is dropped with the open batch and the partitions are read again from the offsets committed in the metastore (the
 * commit itself refuses a batch that does not follow on from those, so no path lands a record twice). A bad record or
 * fencing stops the cycle, after which nothing more is committed. Only offsets committed in the metastore are
 * reported to Kafka.
 * <p>
 * Pipelined ({@code batch.pipelined}, the default), a closed batch is committed on the {@link CommitLane} while the
 * task takes the next one: one batch in flight, counted in the memory budget with the open one. The next batch closes
 * only once that commit is done, and its outcome is handled on this thread as a commit made here would be (a
 * retriable failure holds the batch, to be committed again before anything else), so batches commit in order and the
 * exactly-once protocol is the same. Whatever else talks to the committer (claims, drops, a closing partition) first
 * waits for the batch in flight.
 */
public final class BatchCycle {

    private static final Logger log = LoggerFactory.getLogger(BatchCycle.class);
    /** After a retriable failure, Connect is asked to hand the records again this soon. */
    static final long RETRY_CALL_MS = 1_000;

    private final BatchBuffer buffer;
    private final FlushPolicy flushPolicy;
    private final ExactlyOnceCommitter committer;
    /** Null when bad records fail the task (no errant-record reporter, errors.tolerance=none). */
    private final RejectedRecords rejectedRecords;
    private final LongSupplier clock;
    /** Who the task is to HDFS and the metastore: every step renews its ticket if due, then runs as it. */
    private final TaskIdentity identity;
    /** A closed batch whose commit failed with a retriable error; committed before anything else happens. */
    private Batch pending;
    /** A bad record or fencing stopped the task: nothing more is committed. */
    private boolean stopped;
    /** Fencing met where Connect keeps the task running (its offset commit): the next delivery fails the task. */
    private TaskFencedException fenced;
    /** Asks Connect to read partitions again from the given offsets (before its next delivery). */
    private final Consumer<Map<TopicPartition, Long>> rewinder;
    /** Asks Connect to call the task again within this many milliseconds, records or not. */
    private final LongConsumer nextCallWithin;
    private final PartitionPauses pauses;
    /** What the task last reported to Kafka per partition, at Connect's offset commits. */
    private final Map<TopicPartition, Long> reportedToKafka = new HashMap<>();
    /** Claimed partitions whose consumer's position is not checked against the committed offsets yet. */
    private final ResumePoints resumes;
    /** Claimed partitions whose log no longer reaches their committed offset. */
    private final OffsetsAhead offsetsAhead;
    /**
     * Partitions whose records in this delivery are not taken: rewound during it (its remaining records of them are
     * stale), or not claimed yet.
     */
    private final Set<TopicPartition> skippedInDelivery = new HashSet<>();
    /**
     * Partitions sought since the last delivery the task took, and where to. A delivery may have been fetched before
     * such a seek took effect: after a retriable failure Connect hands the same records again, and a rebalance that
     * only revokes partitions applies no seek before the records of its poll. Taken, a record above the sought offset
     * would come ahead of the ones below it, which the consumer then brings as already taken. So in the next
     * delivery, the first record of such a partition that lies past the offset it expects is not taken: the partition
     * is sought there again and the rest of it skipped. Records from the sought offset on, in order, are taken. (A gap
     * in Kafka's offsets just there costs one needless seek.)
     */
    private final Map<TopicPartition, Long> soughtSinceTaken = new HashMap<>();
    /** The partitions sought since the last delivery taken, for this delivery: see {@link #soughtSinceTaken}. */
    private final Map<TopicPartition, Long> staleInDelivery = new HashMap<>();
    /** Metastore refusals met in a row: retried for a while, then the task fails with the metastore's words. */
    private final Refusals refusals;
    /** Keeps the task's batches inside the worker's memory budget. */
    private final MemoryGate memory;
    /** Partitions assigned while they could not be claimed: claimed on later calls. */
    private final PostponedClaims postponed;
    /** The open batch's encoded bytes when the budget was last told: it is told again when they change. */
    private long bytesTold = -1;

    private final TaskMetrics metrics;
    private final ProgressLine progress;
    /** The time the held batch took to encode, for its commit's metrics. */
    private long pendingEncodeMs;
    /** Where a closed batch is committed while the next one fills; null: commits run on the task's thread. */
    private final CommitLane lane;

    BatchCycle(BatchBuffer buffer, FlushPolicy flushPolicy, ExactlyOnceCommitter committer,
            RejectedRecords rejectedRecords, LongSupplier clock, TaskIdentity identity, ConsumerControl consumer,
            MemoryGate memory, PostponedClaims postponed, TaskMetrics metrics, String task, CommitLane lane) {
        this.lane = lane;
        this.metrics = metrics;
        this.progress = new ProgressLine(task, clock, metrics::lagMsByTable);
        this.memory = memory;
        this.postponed = postponed;
        this.rewinder = consumer.rewinder();
        this.nextCallWithin = consumer.nextCallWithin();
        this.pauses = consumer.pauses();
        this.resumes = consumer.resumes();
        this.offsetsAhead = consumer.offsetsAhead();
        this.refusals = new Refusals(clock, postponed.waitMs());
        this.identity = identity;
        this.buffer = buffer;
        this.flushPolicy = flushPolicy;
        this.committer = committer;
        this.rejectedRecords = rejectedRecords;
        this.clock = clock;
    }

    /**
     * Takes ownership of newly assigned partitions (see {@link ExactlyOnceCommitter#claim}) and resumes them in the
     * buffer at their committed offsets, the metastore's word, not Kafka's: what the consumer delivers below them is
     * skipped, and a consumer that starts elsewhere is sought there ({@link ResumePoints}). A held batch is dropped,
     * with the open one: the claim may have rolled it forward, and the partitions it shares with the claim are read
     * again anyway. If the partitions cannot be claimed for now (the metastore is down), they are paused and claimed
     * on a later call ({@link PostponedClaims}).
     */
    public void claim(Collection<TopicPartition> partitions) {
        identity.renewIfDue();
        identity.run(() -> claimAsTask(partitions));
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

    private void claimAsTask(Collection<TopicPartition> partitions) {
        failIfFenced();
        settleInFlight();
        pauses.opened(partitions);
        Map<TopicPartition, Long> committed;
        try {
            committed = offsetsAhead.check(committer.claim(partitions));
        } catch (ClaimNotPossibleYetException e) {
            buffer.forget(partitions);
            postponed.postpone(partitions, e);
            memory.opened(partitions);
            return;
        }
        claimed(partitions, committed);
        resumes.claimed(committed);
        memory.opened(partitions);
    }

    private void claimed(Collection<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
        buffer.forget(partitions);
        buffer.resumeAt(committed);
        if (pending != null) {
            dropUncommitted("partitions " + partitions + " were assigned while batch " + pending.id()
                    + " waited to be committed again", partitions);
        }
    }

    /** Claims the partitions whose claim was put off, once its next try is due. */
    private void claimPostponedIfDue() {
        if (!postponed.due()) {
            return;
        }
        settleInFlight();
        Set<TopicPartition> partitions = postponed.partitions();
        Map<TopicPartition, Long> committed;
        try {
            committed = offsetsAhead.check(committer.claim(partitions));
        } catch (ClaimNotPossibleYetException e) {
            postponed.failedAgain(e);
            return;
        }
        claimed(partitions, committed);
        // not sought, as at open; a record of them skipped while they waited moved the consumer past the committed
        // offset, which the first record taken from here on shows
        resumes.claimed(committed);
        skippedInDelivery.removeAll(partitions);
        postponed.claimed();
    }

    /** Takes records into the open batch, committing it when the flush policy says so. */
    public void take(Collection<SinkRecord> records) {
        identity.renewIfDue();
        identity.run(() -> takeAsTask(records));
    }

    private void takeAsTask(Collection<SinkRecord> records) {
        failIfFenced();
        skippedInDelivery.clear();
        staleInDelivery.clear();
        staleInDelivery.putAll(soughtSinceTaken);
        try {
            skippedInDelivery.addAll(postponed.partitions());
            seek(resumes.takeDueSeeks());
            claimPostponedIfDue();
            commitPendingIfDone();
            for (SinkRecord record : records) {
                if (!skippedInDelivery.isEmpty()
                        && skippedInDelivery.contains(new TopicPartition(record.topic(), record.kafkaPartition()))) {
                    continue;
                }
                if (!staleInDelivery.isEmpty() && buffer.isAhead(record)) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
                    Long soughtTo = staleInDelivery.get(tp);
                    if (soughtTo != null) {
                        seek(Map.of(tp, soughtTo)); // fetched before the seek took effect: once more, and skipped
                        continue;
                    }
                }
                if (!resumes.isEmpty()) {
                    long seekTo = resumes.seekFor(record);
                    if (seekTo >= 0) {
                        seek(Map.of(new TopicPartition(record.topic(), record.kafkaPartition()), seekTo));
                        continue;
                    }
                }
                boolean taken = buffer.add(record, clock.getAsLong());
                long nowMs = clock.getAsLong();
                if (taken) {
                    buffer.tookAt(nowMs);
                }
                flushIfDue(nowMs);
                if (buffer.byteCount() != bytesTold) {
                    releaseMemoryIfDue();
                }
            }
            buffer.submitPending(); // encode what came in while the consumer fetches more
            flushIfDue(clock.getAsLong()); // the interval also elapses while no records arrive
            progress.logIfDue(buffer.recordCount(), buffer.byteCount());
            releaseMemoryIfDue(); // others may have filled the budget meanwhile
            long dueInMs = soonest(soonest(memory.settle(), flushPolicy.msUntilDue(buffer, clock.getAsLong())),
                    postponed.msUntilNextTry());
            if (dueInMs >= 0) {
                nextCallWithin.accept(Math.max(1, dueInMs));
            }
            soughtSinceTaken.clear();
            refusals.clear();
            memory.committed(); // nothing held failed: the task gives memory back by committing
        } catch (DataException | TaskFencedException e) {
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
            if (metastoreOrStorage(e)) {
                memory.commitFailed(); // a held commit, or the open batch's admission: it cannot close for now
            }
            String stuck = memory.stuckReason();
            if (stuck != null) {
                // others wait on the memory it holds: its records are read again once it can commit
                dropUncommitted(stuck, Set.of());
            }
            nextCallWithin.accept(RETRY_CALL_MS); // Connect hands the records again then, not at its next offset commit
            throw e;
        }
    }

    /** Whether the failure came from the metastore or the FileSystem, not from reading records (a schema registry). */
    private static boolean metastoreOrStorage(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof MetastoreException || cause instanceof StorageUnavailableException
                    || cause instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Has Connect read the partitions from these offsets before its next delivery; what is left of them in this
     * delivery is stale and skipped.
     */
    private void seek(Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        resumes.forget(offsets.keySet());
        skippedInDelivery.addAll(offsets.keySet());
        soughtSinceTaken.putAll(offsets);
        rewinder.accept(offsets);
    }

    private void flushIfDue(long nowMs) {
        FlushPolicy.Due due = flushPolicy.flushReason(buffer, nowMs);
        if (due == null) {
            return;
        }
        if (due.reason() == CloseReason.IDLE && memory.heldBack()) {
            // no record came because the budget paused the partitions: the memory budget closed it, and says so
            flush("idle while held back by the memory budget", CloseReason.MEMORY);
        } else {
            flush(due.description(), due.reason());
        }
    }

    /** The sooner of two delays, where -1 is none. */
    private static long soonest(long a, long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    private void releaseMemoryIfDue() {
        bytesTold = buffer.byteCount();
        if (memory.shouldRelease(heldBytes())) {
            String reason = memory.releaseReason();
            log.info("Closing batch early ({} records): {}", buffer.recordCount(), reason);
            flush("memory budget", CloseReason.MEMORY);
        }
    }

    /** What the task's batches hold in the heap: the open one, and a closed one until it is committed or dropped. */
    private long heldBytes() {
        long held = MemoryBudget.heapBytes(buffer.heldBytes(), buffer.recordCount());
        if (pending != null) {
            held += MemoryBudget.heapBytes(pending.heldBytes(), pending.records());
        }
        return held;
    }

    private void flush(String reason, CloseReason why) {
        long started = System.nanoTime();
        try {
            closeBatch(reason, why);
        } finally {
            metrics.closeStalled((System.nanoTime() - started) / 1_000_000);
        }
    }

    private void closeBatch(String reason, CloseReason why) {
        commitPending(); // one batch in flight: the one before is committed (or held, and thrown) first
        Batch batch = buffer.drain();
        metrics.batchClosed(why);
        pendingEncodeMs = buffer.lastBatchEncodeMs();
        if (rejectedRecords != null) {
            try {
                rejectedRecords.report(batch);
            } catch (RuntimeException e) {
                stopped = true;
                throw e;
            }
            if (rejectedRecords.reports()) {
                metrics.deadLettered(batch.rejected().size());
            } else {
                metrics.skipped(batch.rejected().size());
            }
        }
        metrics.skipped(batch.skipped());
        pending = batch;
        log.debug("Closing batch {} ({} records) on {}", pending.id(), pending.records(), reason);
        if (batch.skipped() > 0) {
            log.info("Batch {} skips {} record(s) with a null value (behavior.on.null.values=ignore)", batch.id(),
                    batch.skipped());
        }
        if (lane == null) {
            commitPending();
        } else {
            memory.holds(heldBytes()); // a batch being committed still holds its memory
            lane.start(() -> committer.commit(batch));
        }
    }

    /** Commits a held batch, or takes the outcome of the one in flight if it is done; never waits for it. */
    private void commitPendingIfDone() {
        if (!inFlight() || lane.done()) {
            commitPending();
        }
    }

    /**
     * Waits for the batch in flight, if any, before the committer is asked anything else; a retriable failure leaves
     * it held, as a failed commit on this thread would.
     */
    private void settleInFlight() {
        if (inFlight()) {
            try {
                commitPending();
            } catch (RetriableException e) {
                log.warn("Batch {} could not be committed; it is held: {}", pending == null ? "(none)" : pending.id(),
                        e.getMessage());
            }
        }
    }

    /** Whether the pending batch is being committed on the lane, its outcome not taken yet. */
    private boolean inFlight() {
        return lane != null && lane.busy();
    }

    /**
     * Commits the held batch, or waits for the one in flight and takes its outcome: either way as one commit made on
     * this thread.
     */
    private void commitPending() {
        if (pending == null) {
            return;
        }
        memory.holds(heldBytes()); // a batch being committed still holds its memory
        try {
            CommitSummary summary = inFlight() ? lane.await() : committer.commit(pending);
            memory.committed();
            metrics.committed(summary, pendingEncodeMs, newestTimestampPerTable(pending));
            pending = null;
            log.info(summary.logLine());
            progress.committed(summary.records(), summary.bytes());
        } catch (TaskFencedException e) {
            metrics.fenced();
            stopped = true; // at every entry point: nothing more is committed, whoever called
            pending.discard();
            pending = null;
            buffer.discard();
            throw e;
        } catch (BatchOutOfSequenceException e) {
            log.warn(e.getMessage());
            dropUncommitted("the commit refused batch " + pending.id(), Set.of());
        } catch (RetriableException e) {
            metrics.commitHeld();
            memory.commitFailed();
            throw e;
        } finally {
            memory.holds(heldBytes());
        }
    }

    private static Map<String, Long> newestTimestampPerTable(Batch batch) {
        Map<String, Long> newest = new HashMap<>();
        for (RecordGroup group : batch.groups()) {
            Long timestamp = group.stats().maxTimestamp();
            if (timestamp != null) {
                newest.merge(group.table(), timestamp, Math::max);
            }
        }
        return newest;
    }

    /**
     * Drops the held batch and the open one, and has Connect read their partitions, but {@code except}, again from
     * the offsets committed in the metastore (or, never committed, from where the task started them).
     */
    private void dropUncommitted(String why, Collection<TopicPartition> except) {
        if (inFlight()) {
            try {
                commitPending(); // committed after all: it is not dropped
            } catch (RuntimeException e) {
                log.debug("Batch in flight not committed, dropped: {}", e.getMessage());
            }
        }
        Map<TopicPartition, Long> from = new HashMap<>();
        String dropped = "";
        if (pending != null) {
            from.putAll(pending.startOffsets());
            dropped = "batch " + pending.id() + " (" + pending.records() + " records) and ";
            pending.discard();
            pending = null;
        }
        long open = buffer.recordCount();
        buffer.startOffsets().forEach(from::putIfAbsent);
        buffer.discard();
        from.keySet().removeAll(except);
        Map<TopicPartition, Long> committed = committer.committedOffsets();
        Map<TopicPartition, Long> rewind = new HashMap<>();
        from.forEach((tp, offset) -> rewind.put(tp, committed.getOrDefault(tp, offset)));
        memory.holds(heldBytes());
        log.info("Dropped {}the open batch ({} records) because {}; reading {} again from {}", dropped, open, why,
                rewind.keySet(), rewind);
        buffer.resumeAt(rewind);
        // Connect takes the offset sought to for Kafka's group offset: no further than what Kafka was last told, so
        // that a batch committed since still reaches Kafka (what lies between is read through and skipped)
        Map<TopicPartition, Long> seekTo = new HashMap<>(rewind);
        reportedToKafka.forEach((tp, offset) -> seekTo.computeIfPresent(tp, (p, target) -> Math.min(target, offset)));
        seek(seekTo);
    }

    /**
     * Commits a held batch (unless the cycle stopped), then answers Connect's offset commit with the offsets committed
     * in the metastore, for the partitions Connect asks about. The open batch stays open: batches are sized by the
     * connector's limits, not by the worker's offset commits. An offset is reported only once the consumer has
     * passed it (Connect refuses one ahead of its position, which happens while a claimed partition is read through
     * to its committed offset); the positions also tell where partitions no record came from yet stand
     * ({@link ResumePoints}).
     */
    public Map<TopicPartition, OffsetAndMetadata> offsetsToCommit(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        identity.renewIfDue();
        return identity.call(() -> offsetsToCommitAsTask(currentOffsets));
    }

    private Map<TopicPartition, OffsetAndMetadata> offsetsToCommitAsTask(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (!stopped) {
            resumes.positionsReported(currentOffsets);
            try {
                commitPendingIfDone(); // a batch in flight is reported once it is committed, at a later call
            } catch (TaskFencedException e) {
                // thrown, Connect would log it, rewind the consumer and run on; the next delivery fails the task
                log.error("Batch found fenced at Connect's offset commit; the task stops: {}", e.getMessage());
                fenced = e;
            } catch (RetriableException e) {
                // thrown, it would make Connect log an error and rewind the consumer; the batch is held instead
                log.warn("Batch {} could not be committed at Connect's offset commit; it is held and committed on "
                        + "the next call: {}", pending == null ? "(none)" : pending.id(), e.getMessage());
            }
        }
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = committer.committedOffsets();
        currentOffsets.forEach((tp, position) -> {
            Long committed = committedOffsets.get(tp);
            if (committed != null) {
                long offset = Math.min(committed, position.offset());
                safe.put(tp, new OffsetAndMetadata(offset));
                reportedToKafka.put(tp, offset);
            }
        });
        return safe;
    }

    /**
     * Partitions close (a rebalance, a stop): the held batch and the open one are committed while this task still
     * owns the partitions. If that fails, both are dropped: the closing partitions' next owner resumes from the
     * committed offsets, and the partitions that stay are read again from there.
     */
    public void close(Collection<TopicPartition> partitions) {
        identity.renewIfDue();
        identity.run(() -> closeAsTask(partitions));
    }

    private void closeAsTask(Collection<TopicPartition> partitions) {
        if (!stopped && (pending != null || !buffer.isEmpty())) {
            try {
                commitPending();
                if (!buffer.isEmpty()) {
                    flush("partitions closing", CloseReason.PARTITIONS_CLOSED);
                    commitPending(); // committed while the task still owns the partitions
                }
            } catch (DataException | TaskFencedException e) {
                stopped = true; // a bad record (errors.tolerance=none) or fencing: the task stops, as in put
                throw e;
            } catch (RuntimeException e) {
                log.warn("Could not commit before partitions {} close: {}", partitions, e.getMessage());
                dropUncommitted("its commit failed while partitions " + partitions + " closed", partitions);
            }
        } else if (pending != null || !buffer.isEmpty()) {
            dropUncommitted("the task stopped committing", partitions);
        }
        buffer.forget(partitions);
        resumes.forget(partitions);
        soughtSinceTaken.keySet().removeAll(partitions);
        reportedToKafka.keySet().removeAll(partitions);
        postponed.closed(partitions);
        pauses.closed(partitions);
    }

    /** Stops the commit lane, letting a commit in flight finish first. */
    void close() {
        if (lane != null) {
            lane.close();
        }
    }
}
