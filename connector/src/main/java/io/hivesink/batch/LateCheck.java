package io.hivesink.batch;

import io.hivesink.config.DoneConfig;
import io.hivesink.table.PartitionValues;

/**
 * Tells records whose time partition is already marked done (late records) and what becomes of them
 * ({@code partition.late.policy}). Asked on the encoding threads, once per run of records of one file group.
 */
public interface LateCheck {

    /** Nothing is late: no table is marked done. */
    LateCheck NONE = (table, partition) -> null;

    /** What becomes of records of this Hive partition of {@code table}: null if they are not late. */
    Late of(String table, PartitionValues partition);

    /**
     * Records are late: their time partition (such as {@code dt=2026-11-22/hr=05}) is marked done.
     *
     * @param policy what becomes of them
     */
    record Late(DoneConfig.LatePolicy policy, String timePartition) {
    }
}
