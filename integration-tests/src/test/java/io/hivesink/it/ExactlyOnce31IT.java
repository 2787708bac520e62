package io.hivesink.it;

import java.util.List;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link ExactlyOnceIT}'s faults on a stock Hive metastore 3.1.3 on its own Derby schema, the most deployed release:
 * it ignores compare-and-set, so every write of a task's state is fenced by a metastore lock, and every kill, zombie,
 * failed commit and lock left behind meets that path. Read by Spark 4.0.1 through the Hive 3.1.3 client, since
 * HiveServer2 4 cannot talk to a 3.1 metastore: once for all the tests, after the last, since each Spark run starts a
 * JVM and its Hive client (about 40 s).
 */
@OnMetastore(MetastoreRelease.HIVE_3_1)
class ExactlyOnce31IT extends ExactlyOnceIT {

    @Override
    boolean killsAtEveryStep() {
        return true;
    }

    @Override
    String fencing() {
        return "locks";
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
