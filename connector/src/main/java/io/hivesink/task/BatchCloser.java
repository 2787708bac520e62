package io.hivesink.task;

import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.CloseReason;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.metrics.TaskMetrics;

/**
 * Closes the open batch when it is due and hands it to the {@link CommitPipeline}: when the flush policy says so
 * (records, bytes, interval or idle time), or when the worker's memory budget is full and this task holds the most
 * ({@link MemoryGate}). Not when Connect commits offsets: batches are sized by the connector's limits, not by the
 * worker's offset commits.
 */
final class BatchCloser {

    private static final Logger log = LoggerFactory.getLogger(BatchCloser.class);

    private final BatchBuffer buffer;
    private final FlushPolicy flushPolicy;
    private final CommitPipeline pipeline;
    private final MemoryGate memory;
    private final TaskMetrics metrics;
    private final LongSupplier clock;
    /** The open batch's encoded bytes when the budget was last told: it is told again when they change. */
    private long bytesTold = -1;

    BatchCloser(BatchBuffer buffer, FlushPolicy flushPolicy, CommitPipeline pipeline, MemoryGate memory,
            TaskMetrics metrics, LongSupplier clock) {
        this.buffer = buffer;
        this.flushPolicy = flushPolicy;
        this.pipeline = pipeline;
        this.memory = memory;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * A record was taken, or not, at {@code nowMs}: closes the open batch if the flush policy or the memory budget
     * says so.
     */
    void afterRecord(long nowMs) {
        closeIfDue(nowMs);
        if (buffer.byteCount() != bytesTold) {
            releaseMemoryIfDue();
        }
    }

    /** A delivery was taken: the interval also elapses while no records arrive, and others may fill the budget. */
    void afterDelivery() {
        closeIfDue(clock.getAsLong());
        pipeline.logProgressIfDue();
        releaseMemoryIfDue();
    }

    /** How soon the open batch is due to close by time, or -1 if it is not. */
    long msUntilDue() {
        return flushPolicy.msUntilDue(buffer, clock.getAsLong());
    }

    private void closeIfDue(long nowMs) {
        FlushPolicy.Due due = flushPolicy.flushReason(buffer, nowMs);
        if (due == null) {
            return;
        }
        if (due.reason() == CloseReason.IDLE && memory.heldBack()) {
            // no record came because the budget paused the partitions: the memory budget closed it, and says so
            close("idle while held back by the memory budget", CloseReason.MEMORY);
        } else {
            close(due.description(), due.reason());
        }
    }

    private void releaseMemoryIfDue() {
        bytesTold = buffer.byteCount();
        // an empty open batch gives nothing back: what the task holds is the batch in flight, freed as it commits
        if (memory.shouldRelease(pipeline.heldBytes()) && !buffer.isEmpty()) {
            String reason = memory.releaseReason();
            log.info("Closing batch early ({} records): {}", buffer.recordCount(), reason);
            close("memory budget", CloseReason.MEMORY);
        }
    }

    /**
     * Closes the open batch and sends it down the pipeline, once the batch before it is committed (or held, and
     * thrown): one batch in flight.
     */
    void close(String reason, CloseReason why) {
        long started = System.nanoTime();
        try {
            if (!pipeline.commit()) {
                return; // the open batch was dropped with the one before it: its records are read again
            }
            Batch batch = buffer.drain();
            metrics.batchClosed(why);
            pipeline.send(batch, buffer.lastBatchEncodeMs(), reason);
        } finally {
            metrics.closeStalled((System.nanoTime() - started) / 1_000_000);
        }
    }
}
