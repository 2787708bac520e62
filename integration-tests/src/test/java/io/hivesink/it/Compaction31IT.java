package io.hivesink.it;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link CompactionIT}'s faults on a stock Hive metastore 3.1.3, where metastore locks fence every write of a task's
 * state: a worker killed at each step of a compaction, a lock it held broken by the next one, whose compactor waits
 * out the late writes after its holds and reads them again; batches landing while a compaction stalls at each step;
 * then MSCK REPAIR TABLE ... SYNC PARTITIONS on 3.1. Read by HiveServer2 3.1.3.
 */
@OnMetastore(value = MetastoreRelease.HIVE_3_1, withHive = true)
class Compaction31IT extends CompactionIT {

    /** Run on Hive 4.0 by {@link CompactionIT}: Spark's reading and the retirement do not depend on the fencing. */
    @Override
    void doneHoursAreCompactedOnceAndHiveAndSparkReadEveryRecordOnce() {
    }

    /** Run on Hive 4.0 by {@link CompactionIT}: what a query that listed the old directory reads is the store's. */
    @Override
    void aHiveQueryRunningAcrossTheSwapReadsTheOldFilesOnce() {
    }
}
