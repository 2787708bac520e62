package io.hivesink.commit;

import java.util.Set;

/**
 * Told where a batch landed once it is committed (after its ledger marker), and again when a batch is rolled forward
 * after a crash: the done marking brings up to date the figures of the time partitions among them that are marked
 * done already (late records). It only takes note, for the marking to act on later: it neither fails nor blocks.
 */
@FunctionalInterface
public interface BatchLandings {

    /** Nobody is told: no table is marked done. */
    BatchLandings NONE = (table, partitionPaths) -> { };

    /**
     * The batch landed records in these Hive partitions of the table.
     *
     * @param partitionPaths the Hive partitions, as paths under the table ({@code dt=2026-11-22/hr=05})
     */
    void landed(String table, Set<String> partitionPaths);
}
