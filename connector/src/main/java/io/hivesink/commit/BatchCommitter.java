package io.hivesink.commit;

import io.hivesink.batch.Batch;

/**
 * Makes a closed batch visible in Hive: files in place, tables and partitions registered. After {@code commit}
 * returns, the batch's offsets may be committed. This is the seam the exactly-once protocol replaces.
 */
public interface BatchCommitter {

    CommitSummary commit(Batch batch);
}
