package io.hivesink.it;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link DonePartitionsIT}'s faults on a stock Hive metastore 3.1.3, where every write of a task's state is fenced by
 * a metastore lock: a worker killed at each step of marking, then the metastore killed for a minute while the
 * survivor marks. Read by HiveServer2 3.1.3. The late-record policies and Spark's reading of the done table do not
 * depend on the fencing: {@link DonePartitionsIT} runs them.
 */
@OnMetastore(value = MetastoreRelease.HIVE_3_1, withHive = true)
class DonePartitions31IT extends DonePartitionsIT {

    /** Run on Hive 4.0 by {@link DonePartitionsIT}. */
    @Override
    void everyHourOfEveryTableIsMarkedDoneOnceInOrderAfterItsLastRecordDespiteASilentPartition() {
    }
}
