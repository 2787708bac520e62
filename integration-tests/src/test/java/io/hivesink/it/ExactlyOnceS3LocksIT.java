package io.hivesink.it;

import java.util.List;

import io.hivesink.it.support.OnS3;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link ExactlyOnceS3IT}'s faults with the tables on S3 and a stock Hive metastore 3.1.3 on its own Derby schema,
 * which fences by locks: the worker killed at every step, commits failing across a rebalance and the store's outage
 * meet the locks' lifecycle (a lock taken around each state read and write, none held across a request to the
 * store). The faults of the metastore alone run on locks over HDFS and on S3 over compare-and-set, not here. Read
 * by Spark 4.0.1 through the Hive 3.1.3 client over {@code s3a://}, once after the last test (see
 * {@link ExactlyOnce31IT}).
 */
@OnS3(MetastoreRelease.HIVE_3_1)
class ExactlyOnceS3LocksIT extends ExactlyOnceS3IT {

    @Override
    String fencing() {
        return "locks";
    }

    /**
     * The metastore's fault, with no request to the store in it: run on locks over HDFS ({@link ExactlyOnce31IT}),
     * and on S3 over compare-and-set ({@link ExactlyOnceS3IT}), where the zombie's batches leave no upload open.
     */
    @Override
    void aTaskWhosePartitionsWentToAnotherTaskIsRefusedItsLateCommitAndRunsOn() {
    }

    /** Likewise: a silent metastore and a frozen worker on locks over HDFS, on S3 over compare-and-set. */
    @Override
    void aSilentMetastoreAndAFrozenWorkerLoseDuplicateAndFailNothing() {
    }

    @Override
    boolean readsAfterTheLastTest() {
        return true;
    }

    @Override
    List<List<List<String>>> query(String... statements) throws Exception {
        return stack.spark().query(statements);
    }
}
