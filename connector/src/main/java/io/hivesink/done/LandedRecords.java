package io.hivesink.done;

import java.util.Set;

import io.hivesink.commit.LedgerCounts;

/** What batches landed in one Hive partition of a table, as their ledger rows say. */
@FunctionalInterface
public interface LandedRecords {

    /**
     * The records the batches landed in the Hive partition, and how many were late.
     *
     * @param partitionPath the Hive partition, as a path under the table ({@code dt=2026-11-22/hr=05})
     * @param batchIds      the batches whose files are in it
     * @return their records there, or null if a batch has no ledger row there
     * @throws java.io.UncheckedIOException if a batch's ledger rows cannot be read now: the mark is tried again
     */
    LedgerCounts.Counts in(String table, String partitionPath, Set<String> batchIds);
}
