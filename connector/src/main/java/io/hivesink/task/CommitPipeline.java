package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.RecordGroup;
import io.hivesink.commit.BatchOutOfSequenceException;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.PartitionsTakenException;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.metrics.TaskMetrics;

/**
 * A closed batch from the moment it closes until it is committed or dropped: at most one at a time, the held batch.
 * Its commit runs on the task's thread, or (pipelined, {@code batch.pipelined}) on the {@link CommitLane} while the
 * next batch fills; either way its outcome is taken on the task's thread, as one commit made there:
 * <ul>
 * <li>committed: the batch is let go, and its memory with it;</li>
 * <li>a retriable failure: the batch stays held, to be committed again before anything else happens;</li>
 * <li>refused as out of sequence: it and the open batch are dropped and their records read again;</li>
 * <li>refused because another task claimed some of its partitions: both are dropped, those partitions wait for Connect
 * to close them ({@link TakenPartitions}), and the others are read again;</li>
 * <li>fenced (another instance runs the task): both are discarded and nothing more is committed
 * ({@link #stopped}).</li>
 * </ul>
 * Whatever else talks to the committer (claims, drops, a closing partition) first waits for the batch in flight
 * ({@link #settle}), so batches commit in order and the exactly-once protocol is the same either way. A held batch
 * and the open one are dropped together: their records are read again from the offsets committed in the metastore
 * (the commit refuses a batch that does not follow on from those, so no path lands a record twice).
 */
final class CommitPipeline implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CommitPipeline.class);

    private final ExactlyOnceCommitter committer;
    /** Where a held batch is committed while the next one fills; null: commits run on the task's thread. */
    private final CommitLane lane;
    /** The open batch: dropped with the held one, and counted with it in the memory budget. */
    private final BatchBuffer buffer;
    private final ConsumerPositions positions;
    /** Where partitions another task claimed wait for Connect to close them. */
    private final TakenPartitions taken;
    private final MemoryGate memory;
    private final TaskMetrics metrics;
    private final ProgressLine progress;
    private final WatermarkUpdates watermarks;
    /** Null when bad records fail the task (no errant-record reporter, errors.tolerance=none). */
    private final RejectedRecords rejectedRecords;
    /** The closed batch not committed yet: in flight on the lane, or held after a retriable failure. */
    private Batch held;
    /** The time the held batch took to encode, for its commit's metrics. */
    private long heldEncodeMs;
    /** What writing the held batch's files takes beyond the batch, counted in the budget while they are written. */
    private long heldWritingBytes;
    /**
     * Whether the held batch's commit runs (its files are written): a batch held after a failed commit writes nothing
     * until it is committed again, so it counts only itself.
     */
    private boolean writing;
    /** Fencing, or a reporter that failed: nothing more is committed. */
    private boolean stopped;

    CommitPipeline(ExactlyOnceCommitter committer, CommitLane lane, BatchBuffer buffer, ConsumerPositions positions,
            TakenPartitions taken, MemoryGate memory, TaskMetrics metrics, ProgressLine progress,
            RejectedRecords rejectedRecords, WatermarkUpdates watermarks) {
        this.taken = taken;
        this.watermarks = watermarks;
        this.rejectedRecords = rejectedRecords;
        this.committer = committer;
        this.lane = lane;
        this.buffer = buffer;
        this.positions = positions;
        this.memory = memory;
        this.metrics = metrics;
        this.progress = progress;
    }

    /**
     * Commits a batch just closed: here, or started on the lane, once its rejected records are reported (a failing
     * reporter stops the task). The one before must be committed.
     */
    void send(Batch batch, long encodeMs, String reason) {
        if (rejectedRecords != null) {
            try {
                rejectedRecords.report(batch, metrics);
            } catch (RuntimeException e) {
                stopped = true;
                throw e;
            }
        }
        metrics.skipped(batch.skipped());
        log.debug("Closing batch {} ({} records) on {}", batch.id(), batch.records(), reason);
        if (batch.skipped() > 0) {
            log.info("Batch {} skips {} record(s) with a null value (behavior.on.null.values=ignore)", batch.id(),
                    batch.skipped());
        }
        held = batch; // held before anything else can throw: its records are in no buffer any more
        heldEncodeMs = encodeMs;
        heldWritingBytes = 0;
        heldWritingBytes = committer.writingBytes(batch);
        if (lane == null) {
            commit();
        } else {
            writing = true;
            memory.holds(heldBytes()); // a batch being committed still holds its memory
            lane.start(() -> commitWatched(batch));
        }
    }

    /** Commits a batch, then brings the watermarks of the tables up to date ({@link WatermarkUpdates}). */
    private CommitSummary commitWatched(Batch batch) {
        CommitSummary summary = committer.commit(batch);
        watermarks.committed(batch);
        return summary;
    }

    /** Commits a held batch, or takes the outcome of the one in flight if it is done; never waits for it. */
    void commitIfDone() {
        if (!inFlight() || lane.done()) {
            commit();
        }
    }

    /**
     * Waits for the batch in flight, if any, before the committer is asked anything else; a retriable failure leaves
     * it held, as a failed commit on this thread would.
     */
    void settle() {
        if (inFlight()) {
            try {
                commit();
            } catch (RetriableException e) {
                log.warn("Batch {} could not be committed; it is held: {}", heldId(), e.getMessage());
            }
        }
    }

    /**
     * Commits the held batch, or waits for the one in flight and takes its outcome: either way as one commit made on
     * this thread.
     *
     * @return false if the commit was refused and the held and open batches were dropped (their records are read
     *     again), true otherwise
     */
    boolean commit() {
        if (held == null) {
            return true;
        }
        writing = true;
        memory.holds(heldBytes()); // a batch being committed still holds its memory
        try {
            CommitSummary summary = inFlight() ? lane.await() : commitWatched(held);
            memory.committed();
            metrics.committed(summary, heldEncodeMs, newestTimestampPerTable(held));
            long late = held.lateRecords();
            if (late > 0) {
                metrics.lateLanded(late);
                log.info("Batch {} landed {} late record(s): their time partitions were marked done by the time it "
                        + "committed; the ledger's late_records counts them per Hive partition", held.id(), late);
            }
            held = null;
            watermarks.report(metrics);
            log.info(summary.logLine());
            progress.committed(summary.landed().records(), summary.landed().bytes());
            return true;
        } catch (TaskFencedException e) {
            metrics.fenced();
            stopped = true; // at every entry point: nothing more is committed, whoever called
            held.discard();
            held = null;
            buffer.discard();
            throw e;
        } catch (BatchOutOfSequenceException e) {
            log.warn(e.getMessage());
            dropUncommitted("the commit refused batch " + held.id(), Set.of());
            return false;
        } catch (PartitionsTakenException e) {
            // the open batch's partitions too: the state read with the refusal says which the task still owns
            Set<TopicPartition> lost = new HashSet<>(held.startOffsets().keySet());
            lost.addAll(buffer.startOffsets().keySet());
            lost.removeAll(committer.ownedPartitions());
            lost.addAll(e.partitions());
            metrics.partitionsTaken(lost.size());
            log.warn("{} Batch {} is dropped; the task goes on with the partitions it still owns.", e.getMessage(),
                    held.id());
            Map<TopicPartition, Long> from = dropUncommitted("another task claimed " + lost, lost);
            from.keySet().retainAll(lost);
            buffer.forget(lost);
            positions.lost(from, lost);
            taken.taken(lost);
            return false;
        } catch (RetriableException e) {
            metrics.commitHeld();
            memory.commitFailed();
            throw e;
        } finally {
            writing = false;
            memory.holds(heldBytes());
        }
    }

    /**
     * Drops the held batch and the open one, and has Connect read their partitions, but {@code except}, again from
     * the offsets committed in the metastore (or, never committed, from where the task started them).
     *
     * @return the offset each dropped partition's records started at, {@code except} included
     */
    Map<TopicPartition, Long> dropUncommitted(String why, Collection<TopicPartition> except) {
        if (inFlight()) {
            try {
                commit(); // committed after all: it is not dropped
            } catch (TaskFencedException e) {
                throw e; // fenced, or its lock broken mid-write: the instance stops, whatever it was dropping for
            } catch (RuntimeException e) {
                log.debug("Batch in flight not committed, dropped: {}", e.getMessage());
            }
        }
        Map<TopicPartition, Long> from = new HashMap<>();
        String dropped = "";
        if (held != null) {
            from.putAll(held.startOffsets());
            dropped = "batch " + held.id() + " (" + held.records() + " records) and ";
            held.discard();
            held = null;
            committer.givenUp(); // its staging, if some is left, goes at the next offset commit
        }
        long open = buffer.recordCount();
        buffer.startOffsets().forEach(from::putIfAbsent);
        buffer.discard();
        Map<TopicPartition, Long> startOffsets = new HashMap<>(from);
        from.keySet().removeAll(except);
        Map<TopicPartition, Long> committed = committer.committedOffsets();
        Map<TopicPartition, Long> rewind = new HashMap<>();
        from.forEach((tp, offset) -> rewind.put(tp, committed.getOrDefault(tp, offset)));
        memory.holds(heldBytes());
        log.info("Dropped {}the open batch ({} records) because {}; reading {} again from {}", dropped, open, why,
                rewind.keySet(), rewind);
        buffer.resumeAt(rewind);
        positions.readAgain(rewind);
        return startOffsets;
    }

    /** Whether a closed batch is held: in flight, or waiting to be committed again. */
    boolean holdsBatch() {
        return held != null;
    }

    /** The held batch's id, for messages. */
    String heldId() {
        return held == null ? "(none)" : held.id();
    }

    /** Whether a commit found the task fenced, or the errant-record reporter failed: nothing more is committed. */
    boolean stopped() {
        return stopped;
    }

    /**
     * What the task's batches hold in the heap: the open one, and a closed one until it is committed or dropped, with
     * what its files' writer takes while they are written.
     */
    long heldBytes() {
        long bytes = MemoryBudget.heapBytes(buffer.heldBytes(), buffer.recordCount());
        if (held != null) {
            bytes += MemoryBudget.heapBytes(held.heldBytes(), held.records()) + (writing ? heldWritingBytes : 0);
        }
        return bytes;
    }

    /** Logs the task's progress line, if one is due. */
    void logProgressIfDue() {
        progress.logIfDue(buffer.recordCount(), buffer.byteCount());
    }

    /** Whether the held batch is being committed on the lane, its outcome not taken yet. */
    private boolean inFlight() {
        return lane != null && lane.busy();
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

    /** Stops the commit lane, letting a commit in flight finish first. */
    @Override
    public void close() {
        if (lane != null) {
            lane.close();
        }
    }
}
