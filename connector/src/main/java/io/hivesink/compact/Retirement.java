package io.hivesink.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.PartitionMove;

/**
 * Step 9 of a compaction ({@code docs/compaction.md}): once {@code compaction.retention.ms} has passed since it was
 * decided, its partitions' old directories are removed. A partition found at its old directory all the same (a
 * write of it read before the swap) is put back at the new one instead: nothing it points at is removed. Any task
 * may retire any compaction; each step may be made twice.
 */
public final class Retirement {

    private static final Logger log = LoggerFactory.getLogger(Retirement.class);

    private final Metastore metastore;
    private final String database;
    private final FileSystem fs;
    private final CompactionLog compactionLog;
    private final long retentionMs;
    private final LongSupplier clock;

    public Retirement(Metastore metastore, String database, FileSystem fs, CompactionLog compactionLog,
            long retentionMs, LongSupplier clock) {
        this.metastore = metastore;
        this.database = database;
        this.fs = fs;
        this.compactionLog = compactionLog;
        this.retentionMs = retentionMs;
        this.clock = clock;
    }

    /**
     * What a sweep did.
     *
     * @param removed the old directories it removed
     * @param overdue the compactions past their retention it left: not decided yet (a compactor that stopped before
     *     its decision and that no finder has ended)
     */
    public record Sweep(int removed, int overdue) {
    }

    /** Retires the compactions whose retention has passed. */
    public Sweep sweep() {
        int removed = 0;
        int overdue = 0;
        for (Map.Entry<String, Long> due : compactionLog.retiring().entrySet()) {
            if (clock.getAsLong() - due.getValue() < retentionMs) {
                continue;
            }
            java.util.Optional<CompactionLog.Outcome> outcome = compactionLog.outcome(due.getKey());
            if (outcome.isEmpty()) {
                overdue++;
                continue; // not decided yet (a short retention): its rows may come
            }
            for (CompactionLog.Row row : compactionLog.rows(due.getKey())) {
                removed += retire(due.getKey(), row) ? 1 : 0;
            }
            compactionLog.retired(due.getKey(), due.getValue()); // undone ones have no rows: nothing of theirs is left
        }
        return new Sweep(removed, overdue);
    }

    private boolean retire(String compaction, CompactionLog.Row row) {
        if (PartitionMove.ifAt(metastore, database, row.table(), row.partition(), row.oldLocation(),
                row.newLocation()).found() == PartitionMove.Found.MOVED) {
            log.warn("Partition {} of {}.{} was at the directory compaction {} moved it from; it is put back at {}",
                    row.partition(), database, row.table(), compaction, row.newLocation());
        }
        try {
            boolean removed = fs.delete(new Path(row.oldLocation()), true);
            if (removed) {
                log.info("Removed {}, the directory partition {} of {} had before compaction {}", row.oldLocation(),
                        row.partition(), row.table(), compaction);
            }
            return removed;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not remove " + row.oldLocation() + ", the old directory of "
                    + "partition " + row.partition() + " of " + row.table(), e);
        }
    }
}
