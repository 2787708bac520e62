package io.hivesink.compact;

import io.hivesink.commit.StateHolds;
import io.hivesink.commit.TaskState;
import io.hivesink.done.PartitionMoves;

/**
 * The moves the done marker must not undo: of a partition this task's state holds for a compaction, the one the
 * compaction log says it decided (its old and new location). Read fresh at each ask: it is asked after a write.
 */
public final class CompactionMoves implements PartitionMoves {

    private final StateHolds holds;
    private final int task;
    private final CompactionLog compactionLog;

    public CompactionMoves(StateHolds holds, int task, CompactionLog compactionLog) {
        this.holds = holds;
        this.task = task;
        this.compactionLog = compactionLog;
    }

    @Override
    public Move of(String table, String partition) {
        TaskState.Hold hold = holds.holdIn(task, table, partition);
        if (hold == null) {
            return null;
        }
        for (CompactionLog.Row row : compactionLog.rows(hold.compaction())) {
            if (row.table().equals(table) && row.partition().equals(partition)) {
                return new Move(hold.compaction(), row.oldLocation(), row.newLocation());
            }
        }
        return null; // not decided yet, or undone: its swap has not come, nor will
    }
}
