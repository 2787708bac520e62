package io.hivesink.batch;

import java.util.Map;

/**
 * When an open batch is closed and committed: by its records, bytes or age, by how long no record has come to it, or
 * by the records of one table that has a limit of its own; whichever comes first.
 */
public final class FlushPolicy {

    private final long maxRecords;
    private final long maxBytes;
    private final long maxIntervalMs;
    private final long maxIdleMs;
    private final Map<String, Long> maxRecordsPerTable;

    /**
     * @param maxIdleMs how long a batch may go without a record before it closes; 0: no limit
     * @param maxRecordsPerTable tables with a record limit of their own
     */
    public FlushPolicy(long maxRecords, long maxBytes, long maxIntervalMs, long maxIdleMs,
            Map<String, Long> maxRecordsPerTable) {
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
        this.maxIntervalMs = maxIntervalMs;
        this.maxIdleMs = maxIdleMs;
        this.maxRecordsPerTable = Map.copyOf(maxRecordsPerTable);
    }

    /**
     * How long the open batch may still wait before its interval or its idle time is up (0: now), or -1 if there is
     * no open batch: Connect is asked to call the task again by then even if no records come.
     */
    public long msUntilDue(BatchBuffer buffer, long nowMs) {
        if (buffer.isEmpty()) {
            return -1;
        }
        long dueAtMs = buffer.openedAtMs() + maxIntervalMs;
        if (maxIdleMs > 0) {
            dueAtMs = Math.min(dueAtMs, buffer.lastRecordAtMs() + maxIdleMs);
        }
        return Math.max(0, dueAtMs - nowMs);
    }

    /**
     * Why the open batch is due to close now.
     *
     * @param description the reason for the log: {@code records}, or {@code records of table dim_customers}
     */
    public record Due(CloseReason reason, String description) {
    }

    /** Why the batch is due to close now, or null if it may keep growing. */
    public Due flushReason(BatchBuffer buffer, long nowMs) {
        if (buffer.isEmpty()) {
            return null;
        }
        if (buffer.recordCount() >= maxRecords) {
            return new Due(CloseReason.RECORDS, "records");
        }
        if (buffer.byteCount() >= maxBytes) {
            return new Due(CloseReason.BYTES, "bytes");
        }
        if (nowMs - buffer.openedAtMs() >= maxIntervalMs) {
            return new Due(CloseReason.INTERVAL, "interval");
        }
        if (maxIdleMs > 0 && nowMs - buffer.lastRecordAtMs() >= maxIdleMs) {
            return new Due(CloseReason.IDLE, "idle time");
        }
        for (Map.Entry<String, Long> limit : maxRecordsPerTable.entrySet()) {
            if (buffer.tableRecordCount(limit.getKey()) >= limit.getValue()) {
                return new Due(CloseReason.TABLE_RECORDS, "records of table " + limit.getKey());
            }
        }
        return null;
    }
}
