package io.hivesink.commit;

import java.util.Set;

/**
 * Told, as a batch is finished, where it landed late records: Hive partitions whose time partitions were marked
 * done before the batch's commit, whose done figures are then brought up to date. A step of the commit after its
 * ledger marker, so a batch rolled forward after a crash is told again: it must be repeatable.
 */
@FunctionalInterface
public interface LateLandings {

    /** Nothing is noted: no table is marked done. */
    LateLandings NONE = (table, partitionPaths) -> { };

    /**
     * The batch landed late records in these Hive partitions of the table.
     *
     * @param partitionPaths the Hive partitions, as paths under the table ({@code dt=2026-11-22/hr=05})
     */
    void landed(String table, Set<String> partitionPaths);
}
