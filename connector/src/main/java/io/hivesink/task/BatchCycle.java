package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.security.TaskIdentity;

/**
 * One task's batches from records taken to batches committed: records go into the open batch, which closes when the
 * flush policy says so or when Connect commits offsets, and goes to the committer. A batch whose commit failed with
 * a retriable error is held and committed before anything else happens; a bad record or fencing stops the cycle,
 * after which nothing more is committed. Only offsets committed in the metastore are reported to Kafka.
 */
public final class BatchCycle {

    private static final Logger log = LoggerFactory.getLogger(BatchCycle.class);

    private final BatchBuffer buffer;
    private final FlushPolicy flushPolicy;
    private final ExactlyOnceCommitter committer;
    /** Null when the connector has no errant-record reporter: a bad record then fails the task. */
    private final RejectedRecords rejectedRecords;
    private final LongSupplier clock;
    /** Who the task is to HDFS and the metastore: every step renews its ticket if due, then runs as it. */
    private final TaskIdentity identity;
    /** A closed batch whose commit failed with a retriable error; committed before anything else happens. */
    private Batch pending;
    /** A bad record or fencing stopped the task: nothing more is committed. */
    private boolean stopped;

    BatchCycle(BatchBuffer buffer, FlushPolicy flushPolicy, ExactlyOnceCommitter committer,
            RejectedRecords rejectedRecords, LongSupplier clock, TaskIdentity identity) {
        this.identity = identity;
        this.buffer = buffer;
        this.flushPolicy = flushPolicy;
        this.committer = committer;
        this.rejectedRecords = rejectedRecords;
        this.clock = clock;
    }

    /**
     * Takes ownership of newly assigned partitions (see {@link ExactlyOnceCommitter#claim}) and forgets what the
     * buffer knew of them.
     *
     * @return where to resume each partition that has committed offsets: the metastore's word, not Kafka's
     */
    public Map<TopicPartition, Long> claim(Collection<TopicPartition> partitions) {
        identity.renewIfDue();
        return identity.call(() -> claimAsTask(partitions));
    }

    private Map<TopicPartition, Long> claimAsTask(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> committed = committer.claim(partitions);
        buffer.forget(partitions);
        return committed;
    }

    /** Takes records into the open batch, committing it when the flush policy says so. */
    public void take(Collection<SinkRecord> records) {
        identity.renewIfDue();
        identity.run(() -> takeAsTask(records));
    }

    private void takeAsTask(Collection<SinkRecord> records) {
        try {
            commitPending();
            for (SinkRecord record : records) {
                buffer.add(record, clock.getAsLong());
                flushIfDue();
            }
            buffer.submitPending(); // encode what came in while the consumer fetches more
            flushIfDue(); // the interval also elapses while no records arrive
        } catch (DataException | TaskFencedException e) {
            // The task stops; the offset commit that Connect still makes while closing must not try this batch again.
            stopped = true;
            throw e;
        }
    }

    private void flushIfDue() {
        String reason = flushPolicy.flushReason(buffer, clock.getAsLong());
        if (reason != null) {
            flush(reason);
        }
    }

    private void flush(String reason) {
        Batch batch = buffer.drain();
        if (rejectedRecords != null) {
            try {
                rejectedRecords.report(batch);
            } catch (RuntimeException e) {
                stopped = true;
                throw e;
            }
        }
        pending = batch;
        log.debug("Closing batch {} ({} records) on {}", pending.id(), pending.records(), reason);
        commitPending();
    }

    private void commitPending() {
        if (pending == null) {
            return;
        }
        try {
            CommitSummary summary = committer.commit(pending);
            pending = null;
            log.info(summary.logLine());
        } catch (TaskFencedException e) {
            pending = null;
            buffer.discard();
            throw e;
        }
    }

    /**
     * Closes the open batch and commits it (unless the cycle stopped), then answers Connect's offset commit with the
     * offsets committed in the metastore, for the partitions Connect asks about.
     */
    public Map<TopicPartition, OffsetAndMetadata> offsetsToCommit(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        identity.renewIfDue();
        return identity.call(() -> offsetsToCommitAsTask(currentOffsets));
    }

    private Map<TopicPartition, OffsetAndMetadata> offsetsToCommitAsTask(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (!stopped) {
            commitPending();
            if (!buffer.isEmpty()) {
                flush("offset commit");
            }
        }
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = committer.committedOffsets();
        for (TopicPartition tp : currentOffsets.keySet()) {
            Long committed = committedOffsets.get(tp);
            if (committed != null) {
                safe.put(tp, new OffsetAndMetadata(committed));
            }
        }
        return safe;
    }

    /**
     * Connect commits offsets (and so flushes) right before it closes partitions, so the buffer is normally empty
     * here. If records arrived in between, the open batch is dropped: nothing is written for offsets that Connect
     * would not commit.
     *
     * @return the partitions that stay assigned and had records in the dropped batch, with the offset of the first
     *     one: to be re-read from there
     */
    public Map<TopicPartition, Long> close(Collection<TopicPartition> partitions) {
        identity.renewIfDue();
        return identity.call(() -> closeAsTask(partitions));
    }

    private Map<TopicPartition, Long> closeAsTask(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> rewind = new HashMap<>();
        if (!buffer.isEmpty()) {
            rewind.putAll(buffer.discard());
            rewind.keySet().removeAll(partitions);
            log.info("Dropped the open batch on partition close; re-reading {} from their first dropped offsets",
                    rewind.keySet());
        }
        buffer.forget(partitions);
        return rewind;
    }
}
