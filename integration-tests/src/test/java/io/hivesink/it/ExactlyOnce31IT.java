package io.hivesink.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;

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

    private final List<Checked> checks = new ArrayList<>();
    /** The topics whose every row is compared with what was produced, after the last test. */
    private final List<List<String>> readValueByValue = new ArrayList<>();

    /** A test's connector and topics, checked after the last test. */
    private record Checked(String connector, List<String> topics) {
    }

    @Override
    void assertExactlyOnce(String connector, List<String> topics) {
        checks.add(new Checked(connector, topics));
    }

    @Override
    void assertEveryReadingAsProduced(List<String> topics) {
        readValueByValue.add(topics);
    }

    @AfterAll
    void everyRecordOnceThroughSpark() throws Exception {
        List<String> statements = new ArrayList<>();
        for (Checked check : checks) {
            statements.addAll(exactlyOnceQueries(check.connector(), check.topics()));
        }
        for (List<String> topics : readValueByValue) {
            statements.addAll(everyReadingQueries(topics));
        }
        if (statements.isEmpty()) {
            return;
        }
        List<List<List<String>>> results = query(statements.toArray(String[]::new));
        for (int i = 0; i < checks.size(); i++) {
            checkExactlyOnce(checks.get(i).topics(), results.subList(2 * i, 2 * i + 2));
        }
        int next = 2 * checks.size();
        for (List<String> topics : readValueByValue) {
            checkEveryReadingAsProduced(topics, results.subList(next, next + topics.size()));
            next += topics.size();
        }
        System.out.println("ExactlyOnce31IT: each record once through Spark, for " + checks.size() + " tests; "
                + "every row value by value, for " + readValueByValue.size() + " tests");
    }

    @Override
    List<List<List<String>>> query(String... statements) throws Exception {
        return new SparkSql(stack.metastore().uri(), MetastoreRelease.HIVE_3_1,
                Path.of("target", "it-stack", getClass().getSimpleName(), "spark")).query(statements);
    }
}
