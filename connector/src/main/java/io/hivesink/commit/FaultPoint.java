package io.hivesink.commit;

import java.util.List;

/** The steps at which a crash test can kill the task: of a batch commit, then of marking a time partition done. */
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
    DONE_ROW_WRITTEN;

    /** The steps of a batch commit, in protocol order. */
    public static List<FaultPoint> commitSteps() {
        return List.of(SOME_STAGED, ALL_STAGED, INTENT_DURABLE, HALF_MOVED, ALL_MOVED, HALF_REGISTERED, REGISTERED,
                MARKED);
    }

    /** The steps of marking a time partition done, in order. */
    public static List<FaultPoint> markingSteps() {
        return List.of(DONE_PARAMETERS, DONE_SUCCESS_FILES, DONE_ROW_WRITTEN);
    }
}
