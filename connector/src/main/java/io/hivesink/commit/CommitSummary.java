package io.hivesink.commit;

/**
 * What one batch commit landed and where its time went, for the log and metrics.
 *
 * @param landed what the batch put in the tables
 * @param steps the time each step of the protocol took
 */
public record CommitSummary(String batchId, Landed landed, StepTimes steps) {

    /** What a batch put in the tables. */
    public record Landed(long records, int tables, int partitions, int newPartitions, int files, long bytes) {
    }

    /**
     * Milliseconds per step of the commit ({@link ExactlyOnceCommitter}): admitting its tables, staging its files,
     * recording the intent, moving the files, registering partitions, marking the batch complete in the ledger, and
     * writing the task state. A batch finished after a failed try did not run the first three again: they are 0.
     */
    public record StepTimes(long tablesMs, long stagingMs, long intentMs, long movingMs, long registeringMs,
            long markingMs, long stateMs) {

        /** The steps a batch finished from its manifest ran: moving, registering, marking, and the state. */
        static StepTimes finished(BatchFinisher.Finished finished, long stateMs) {
            return new StepTimes(0, 0, 0, finished.movingMs(), finished.registeringMs(), finished.markingMs(),
                    stateMs);
        }
    }

    public String logLine() {
        return "Committed batch " + batchId + ": " + landed.records() + " records, " + landed.tables() + " tables, "
                + landed.partitions() + " partitions (" + landed.newPartitions() + " new), " + landed.files()
                + " files, " + landed.bytes() + " bytes; tables " + steps.tablesMs() + " ms, staging "
                + steps.stagingMs() + " ms, intent " + steps.intentMs() + " ms, moving " + steps.movingMs()
                + " ms, registering " + steps.registeringMs() + " ms, committing " + steps.markingMs() + " ms, state "
                + steps.stateMs() + " ms";
    }
}
