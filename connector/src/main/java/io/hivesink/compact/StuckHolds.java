package io.hivesink.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.StateHolds;
import io.hivesink.commit.TaskState;
import io.hivesink.metastore.HiveTable;

/**
 * Finds compactions whose compactor stopped between their hold and their release (it died, its task was stopped,
 * or {@code tasks.max} went down), and ends them ({@code docs/compaction.md}, "Finding a compaction"). Every hold is in
 * every task's state, so a task looks only in its own. A hold not released twice {@code compaction.hold.max.ms} after
 * it was written, or one of an earlier run of this task (its compactor stopped with it), is decided by the compaction
 * log: an add that marks it undone, unless it was decided already. Undone, its holds and merged files go; finished,
 * it is swapped and released as its compactor would have.
 */
public final class StuckHolds {

    private static final Logger log = LoggerFactory.getLogger(StuckHolds.class);

    private final StateHolds holds;
    private final int task;
    private final CompactionLog compactionLog;
    private final Compactor compactor;
    private final Function<String, HiveTable> tables;
    private final FileSystem fs;
    private final long stuckAfterMs;
    private final LongSupplier clock;
    /** This task's run, whose compactions are its own; and what every run of this task's ids start with. */
    private final String instance;
    private final String taskPrefix;

    /**
     * @param tables       the table of a name, where the generation directories are
     * @param holdMaxMs    {@code compaction.hold.max.ms}: a hold twice this old is stuck
     * @param instance     this task's run ({@code <connector>-t<task>-<time>-<random>}): a hold of an earlier run of
     *                     the same task is stuck at once, its compactor stopped with it
     */
    public StuckHolds(StateHolds holds, int task, CompactionLog compactionLog, Compactor compactor,
            Function<String, HiveTable> tables, FileSystem fs, long holdMaxMs, LongSupplier clock, String instance) {
        this.instance = instance;
        int random = instance.lastIndexOf('-');
        this.taskPrefix = instance.substring(0, instance.lastIndexOf('-', random - 1) + 1);
        this.holds = holds;
        this.task = task;
        this.compactionLog = compactionLog;
        this.compactor = compactor;
        this.tables = tables;
        this.fs = fs;
        this.stuckAfterMs = 2 * holdMaxMs;
        this.clock = clock;
    }

    /**
     * Ends the stuck compactions held in the task's state, but those running here.
     *
     * @return how many it ended
     */
    public int find(Set<String> runningHere) {
        int ended = 0;
        for (TaskState.Hold hold : holds.holdsIn(task)) {
            boolean earlierRun = hold.compaction().startsWith(taskPrefix)
                    && !hold.compaction().startsWith(instance + "-");
            if (hold.released() || runningHere.contains(hold.compaction())
                    || (!earlierRun && clock.getAsLong() - hold.since() < stuckAfterMs)) {
                continue;
            }
            CompactionLog.Outcome outcome = compactionLog.outcome(hold.compaction())
                    .orElseGet(() -> compactionLog.undo(hold.compaction()));
            log.warn("Compaction {} of partition {} of {} {}: found {}", hold.compaction(), hold.partition(),
                    hold.table(), earlierRun ? "was stopped with an earlier run of this task"
                            : "held it for more than " + stuckAfterMs + " ms", outcome == CompactionLog.Outcome.UNDONE
                            ? "not decided, and undone" : "decided, and finished");
            if (outcome == CompactionLog.Outcome.UNDONE) {
                holds.remove(hold.table(), hold.partition(), hold.compaction());
                Path merged = new Path(tables.apply(hold.table()).generation(hold.partition(), hold.compaction()));
                try {
                    fs.delete(merged, true);
                } catch (IOException e) {
                    throw new UncheckedIOException("Could not remove " + merged + ", the merged files of compaction "
                            + hold.compaction() + ", undone", e);
                }
            } else {
                for (CompactionLog.Row row : compactionLog.rows(hold.compaction())) {
                    if (row.table().equals(hold.table()) && row.partition().equals(hold.partition())) {
                        compactor.finish(row.table(), row.partition(), hold.compaction(),
                                new Path(row.oldLocation()), new Path(row.newLocation()));
                    }
                }
            }
            ended++;
        }
        return ended;
    }
}
