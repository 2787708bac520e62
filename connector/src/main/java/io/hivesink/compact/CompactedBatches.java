package io.hivesink.compact;

import java.util.LinkedHashSet;
import java.util.Set;

import io.hivesink.done.LandedRecords;

/**
 * The records of a Hive partition's files counted through the ledger when some are merged files: a merged file
 * carries its compaction's id where a batch file carries its batch's ({@code part-<id>-<nnnnn>}), and the compaction
 * log's rows name the batches it replaced, which the ledger counts. A compaction of merged files replaced compactions:
 * their batches are looked up in turn.
 */
public final class CompactedBatches implements LandedRecords {

    /**
     * What a compaction id holds. A batch id holds it only if a part of its instance's random suffix is {@code k}
     * (rarely): such a batch is looked up in the log, not found, and counted as itself.
     */
    private static final String MARK = "-k-";
    /** Compactions of compactions looked through at most. */
    private static final int DEPTH = 8;

    private final LandedRecords ledger;
    private final CompactionLog compactionLog;

    public CompactedBatches(LandedRecords ledger, CompactionLog compactionLog) {
        this.ledger = ledger;
        this.compactionLog = compactionLog;
    }

    /** The id of a task run's {@code n}th compaction: it ends as a batch id does, so its files are the connector's. */
    public static String id(String instance, long n) {
        return instance + MARK + n;
    }

    /** Whether a name (of a file's id, or of a generation directory) is a compaction's id. */
    public static boolean isId(String name) {
        return name.contains(MARK);
    }

    @Override
    public io.hivesink.commit.LedgerCounts.Counts in(String table, String partitionPath, Set<String> batchIds) {
        return ledger.in(table, partitionPath, batchesOf(table, partitionPath, batchIds, DEPTH));
    }

    private Set<String> batchesOf(String table, String partition, Set<String> ids, int depth) {
        Set<String> batches = new LinkedHashSet<>();
        for (String id : ids) {
            if (!id.contains(MARK) || depth == 0) {
                batches.add(id);
                continue;
            }
            boolean found = false;
            for (CompactionLog.Row row : compactionLog.rows(id)) {
                if (row.table().equals(table) && row.partition().equals(partition)) {
                    batches.addAll(batchesOf(table, partition, Set.copyOf(row.replacedBatches()), depth - 1));
                    found = true;
                }
            }
            if (!found) {
                batches.add(id); // not in the log: the ledger has no row of it either, and the count is unknown
            }
        }
        return batches;
    }
}
