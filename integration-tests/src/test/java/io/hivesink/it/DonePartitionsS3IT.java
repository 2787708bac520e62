package io.hivesink.it;

import io.hivesink.it.support.OnS3;

/**
 * {@link DonePartitionsIT}'s faults with the tables on S3 (S3Proxy), on metastore 4.0.1 fencing by compare-and-set:
 * a worker killed at each step of marking, then the metastore killed for a minute while the survivor marks. On S3
 * the {@code _SUCCESS} files and the done rows are objects written whole, and a done row's directory is a key prefix:
 * a row written by a task that lost the race to mark, or by a killed one, must not be read. Read by HiveServer2
 * 4.0.1 over {@code s3a://}. {@link DonePartitions31IT} runs the same faults on HDFS, fenced by locks.
 */
@OnS3
class DonePartitionsS3IT extends DonePartitionsIT {

    /** Run on HDFS by {@link DonePartitionsIT}: the late-record policies do not depend on the store. */
    @Override
    void everyHourOfEveryTableIsMarkedDoneOnceInOrderAfterItsLastRecordDespiteASilentPartition() {
    }
}
