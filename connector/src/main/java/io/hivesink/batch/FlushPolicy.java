package io.hivesink.batch;

/** When an open batch is closed and committed, by size, bytes or age; whichever comes first. */
public final class FlushPolicy {

    private final long maxRecords;
    private final long maxBytes;
    private final long maxIntervalMs;

    public FlushPolicy(long maxRecords, long maxBytes, long maxIntervalMs) {
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
        this.maxIntervalMs = maxIntervalMs;
    }

    /** The reason to flush now, or null if the batch may keep growing. */
    public String flushReason(BatchBuffer buffer, long nowMs) {
        if (buffer.isEmpty()) {
            return null;
        }
        if (buffer.recordCount() >= maxRecords) {
            return "records";
        }
        if (buffer.byteCount() >= maxBytes) {
            return "bytes";
        }
        if (nowMs - buffer.openedAtMs() >= maxIntervalMs) {
            return "interval";
        }
        return null;
    }
}
