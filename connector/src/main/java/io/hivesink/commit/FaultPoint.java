package io.hivesink.commit;

import java.util.List;

/**
 * The steps at which a crash test can kill the task: of a batch commit, of marking a time partition done, of a
 * compaction.
 */
public enum FaultPoint {
    SOME_STAGED,
    ALL_STAGED,
    INTENT_DURABLE,
    HALF_MOVED,
    ALL_MOVED,
    HALF_REGISTERED,
    REGISTERED,
    MARKED,
    /** A time partition's Hive partitions have their done parameters. */
    DONE_PARAMETERS,
    /** Their {@code _SUCCESS} files are written. */
    DONE_SUCCESS_FILES,
    /** Its done row's file is written, its partition not added yet. */
    DONE_ROW_WRITTEN,
    /** A compaction's merged files are written (step 2), nothing held yet. */
    COMPACTION_MERGED,
    /** Its holds are in every task's state (step 3). */
    COMPACTION_HELD,
    /** It is decided: its rows are in the compaction log (step 6). */
    COMPACTION_DECIDED,
    /** The partition is swapped to the merged files (step 7), its holds not released yet. */
    COMPACTION_SWAPPED;

    /** The steps of a batch commit, in protocol order. */
    public static List<FaultPoint> commitSteps() {
        return List.of(SOME_STAGED, ALL_STAGED, INTENT_DURABLE, HALF_MOVED, ALL_MOVED, HALF_REGISTERED, REGISTERED,
                MARKED);
    }

    /** The steps of a compaction, in order. */
    public static List<FaultPoint> compactionSteps() {
        return List.of(COMPACTION_MERGED, COMPACTION_HELD, COMPACTION_DECIDED, COMPACTION_SWAPPED);
    }

    /** The steps of marking a time partition done, in order. */
    public static List<FaultPoint> markingSteps() {
        return List.of(DONE_PARAMETERS, DONE_SUCCESS_FILES, DONE_ROW_WRITTEN);
    }
}
