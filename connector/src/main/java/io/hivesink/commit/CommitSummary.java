package io.hivesink.commit;

/** What one batch commit did and where its time went, for the log and metrics. */
public record CommitSummary(String batchId, long records, int tables, int partitions, int newPartitions, int files,
        long bytes, long tablesMs, long stagingMs, long intentMs, long movingMs, long registeringMs, long markingMs,
        long stateMs) {

    public String logLine() {
        return "Committed batch " + batchId + ": " + records + " records, " + tables + " tables, " + partitions
                + " partitions (" + newPartitions + " new), " + files + " files, " + bytes + " bytes; tables "
                + tablesMs + " ms, staging " + stagingMs + " ms, intent " + intentMs + " ms, moving " + movingMs
                + " ms, registering " + registeringMs + " ms, committing " + markingMs + " ms, state " + stateMs
                + " ms";
    }
}
