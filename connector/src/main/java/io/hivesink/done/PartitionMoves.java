package io.hivesink.done;

/**
 * Where a compaction moved a Hive partition, as the task's state tells it ({@code docs/compaction.md}): what the
 * done marker checks after it writes a partition, since a write of a partition read before the compaction's swap puts
 * the old location back.
 */
@FunctionalInterface
public interface PartitionMoves {

    /** For tables no compaction moves. */
    PartitionMoves NONE = (table, partition) -> null;

    /** A compaction's move of a partition, decided: from its old location to its new one. */
    record Move(String compaction, String from, String to) {
    }

    /**
     * The move of a compaction whose hold on the partition the task's state has and whose decision is that it
     * finished; null if none.
     *
     * @param partition the partition's path, such as {@code dt=2026-11-29/hr=05}
     */
    Move of(String table, String partition);
}
