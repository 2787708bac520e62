package io.hivesink.it;

import io.hivesink.it.support.OnS3;

/**
 * {@link ExactlyOnceS3IT}'s store outage with the tasks fencing by metastore locks, as on Hive 3.1: the metastore
 * (4.0.1) on its full schema, where it cannot compare and set on Derby. The store's outage meets the locks' lifecycle
 * (a lock taken around each state read and write, none held across a request to the store). The kill at every step
 * runs with locks on HDFS ({@link ExactlyOnce31IT}) and with compare-and-set on S3 ({@link ExactlyOnceS3IT}).
 */
@OnS3(lockTables = true)
class ExactlyOnceS3LocksIT extends ExactlyOnceS3IT {

    @Override
    boolean killsAtEveryStep() {
        return false;
    }

    @Override
    String fencing() {
        return "locks";
    }
}
