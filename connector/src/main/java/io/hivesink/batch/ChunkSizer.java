package io.hivesink.batch;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many records go into a chunk: as many as make about {@link #CHUNK_BYTES} encoded, by the average record size
 * seen over the task's life. Chunks large enough to amortise the hand-off to a thread, small enough to spread over
 * the threads and to stay regular objects for G1 (arrays of half a region or more are "humongous" and waste the
 * rest of their regions; regions are at least 1 MiB).
 */
final class ChunkSizer {

    static final int CHUNK_BYTES = 256 * 1024;
    /** Records per chunk while the record size is not known yet, and the bounds once it is. */
    static final int FIRST_CHUNK_RECORDS = 256;
    static final int MIN_CHUNK_RECORDS = 16;
    static final int MAX_CHUNK_RECORDS = 4096;

    private final AtomicLong observedBytes = new AtomicLong();
    private final AtomicLong observedRecords = new AtomicLong();

    /** Called by the encoding threads for each chunk they encode. */
    void observe(long bytes, long records) {
        observedBytes.addAndGet(bytes);
        observedRecords.addAndGet(records);
    }

    int chunkRecords() {
        long count = observedRecords.get();
        if (count == 0) {
            return FIRST_CHUNK_RECORDS;
        }
        long averageBytes = Math.max(1, observedBytes.get() / count);
        return (int) Math.max(MIN_CHUNK_RECORDS, Math.min(MAX_CHUNK_RECORDS, CHUNK_BYTES / averageBytes));
    }
}
