package io.hivesink.metastore;

import java.util.List;

import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.table.HivePaths;

/**
 * Moves one partition's location from one directory to another only if it is at the first: the one write that a
 * compaction's swap, its retirement's put-back and the done marker's mending all make ({@code docs/compaction.md}).
 * The partition is read just before the write and written whole, as {@code alter_partitions} writes it; the answer
 * says where it was found, so that each caller decides what a partition found elsewhere means.
 */
public final class PartitionMove {

    /** Where the partition was found before the write. */
    public enum Found {
        /** At {@code from}: now at {@code to}. */
        MOVED,
        /** At {@code to} already: left as it is. */
        AT_TARGET,
        /** At neither: left as it is. */
        ELSEWHERE,
        /** Not in the metastore (dropped). */
        GONE
    }

    /**
     * What the move found.
     *
     * @param found where the partition was
     * @param location its location when read, or null when gone
     */
    public record Result(Found found, String location) {

        /** Whether the partition is at {@code to} now. */
        public boolean atTarget() {
            return found == Found.MOVED || found == Found.AT_TARGET;
        }
    }

    private PartitionMove() {
    }

    /** Moves {@code partition} (a Hive partition path) of {@code table} to {@code to} if it is at {@code from}. */
    public static Result ifAt(Metastore metastore, String database, String table, String partition, String from,
            String to) {
        List<Partition> found = metastore.partitionsByNames(database, table, List.of(partition));
        if (found.isEmpty()) {
            return new Result(Found.GONE, null);
        }
        String at = found.get(0).getSd().getLocation();
        if (HivePaths.sameDir(at, from)) {
            Partition moved = found.get(0).deepCopy();
            moved.getSd().setLocation(to);
            metastore.alterPartitions(database, table, List.of(moved));
            return new Result(Found.MOVED, at);
        }
        return new Result(HivePaths.sameDir(at, to) ? Found.AT_TARGET : Found.ELSEWHERE, at);
    }

    /** The location of {@code partition} of {@code table}, or null if it is not in the metastore. */
    public static String locationOf(Metastore metastore, String database, String table, String partition) {
        List<Partition> found = metastore.partitionsByNames(database, table, List.of(partition));
        return found.isEmpty() ? null : found.get(0).getSd().getLocation();
    }
}
