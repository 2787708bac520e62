package io.hivesink.commit;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.fs.Path;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.table.HivePaths;

/**
 * Step 2's check of compactions' holds ({@code docs/compaction.md}, steps 4 and 9), made on the task's state as the
 * intent's conditional write replaces it: a compaction writes its hold into every task's state, so an intent
 * written after it meets the hold here, and one written before it is one the compaction sees and waits for. A batch
 * that lands in a held partition, or that was staged for a directory the partition has left, is refused.
 */
final class HoldCheck {

    private HoldCheck() {
    }

    /** Where one of a batch's files lands: its table, its partition's path, the directory it was staged for. */
    record Landing(String table, String partition, Path dir) {
    }

    /** Where the batch's files land: one per record group ({@link BatchStager} stages them in the groups' order). */
    static List<Landing> landings(Batch batch, List<Manifest.StagedFile> files) {
        List<RecordGroup> groups = batch.groups();
        if (groups.size() != files.size()) {
            throw new IllegalStateException("Batch " + batch.id() + " has " + groups.size() + " record groups but "
                    + files.size() + " staged files");
        }
        List<Landing> landings = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            landings.add(new Landing(groups.get(i).table(), groups.get(i).partition().path(),
                    files.get(i).target().getParent()));
        }
        return landings;
    }

    /**
     * @throws BatchHeldException if a hold refuses the batch
     */
    static void require(String batchId, List<Landing> landings, TaskState state) {
        for (Landing landing : landings) {
            TaskState.Hold hold = state.holdOn(landing.table(), landing.partition());
            if (hold == null) {
                continue;
            }
            String where = (landing.partition().isEmpty() ? "" : "partition " + landing.partition() + " of ")
                    + "table " + landing.table();
            if (!hold.released()) {
                throw new BatchHeldException("Batch " + batchId + " lands in " + where + ", which compaction "
                        + hold.compaction() + " holds while it swaps the partition's files; the batch is tried "
                        + "again, and committed once the compaction releases the partition (seconds)");
            }
            if (!HivePaths.sameDir(landing.dir(), new Path(hold.location()))) {
                throw new BatchHeldException("Batch " + batchId + " was staged for " + landing.dir() + ", but "
                        + "compaction " + hold.compaction() + " moved " + where + " to " + hold.location()
                        + "; the batch is staged again there");
            }
        }
    }
}
