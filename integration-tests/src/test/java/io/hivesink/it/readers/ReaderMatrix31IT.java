package io.hivesink.it.readers;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;
import io.hivesink.stack.trino.TrinoServer;

/**
 * The reader matrix on a Hive metastore 3.1.3 (the most deployed; the connector fences with locks there), read by
 * HiveServer2 3.1.3 (its own execution and readers; the metastore carries hive-exec for its partition filters, as a
 * full Hive install does), Spark 4.0.1 through the Hive 3.1.3 client and Trino 476 on this metastore as Trino users
 * run one (it answers Trino as the stock standalone metastore does).
 */
@OnMetastore(value = MetastoreRelease.HIVE_3_1, withHive = true)
class ReaderMatrix31IT extends ReaderMatrix {

    @Test
    void hiveServer2ReadsEveryFormatAsProduced() throws Exception {
        assertReadersAgreeWithTheOracle(KnownLimitations.ALL, MatrixReader.hive("hive-3.1.3", stack().hive()));
    }

    @Test
    void sparkReadsEveryFormatAsProduced() throws Exception {
        assertReadersAgreeWithTheOracle(KnownLimitations.ALL, MatrixReader.spark("spark-4.0.1/metastore-3.1.3",
                new SparkSql(stack().metastore().uri(), MetastoreRelease.HIVE_3_1,
                        stack().workDir().resolve("spark"))));
    }

    @Test
    void trinoReadsEveryFormatAsProduced() throws Exception {
        Optional<Path> java = TrinoServer.javaHome();
        Assumptions.assumeTrue(java.isPresent(), "Trino 476 needs Java " + TrinoServer.LEAST_JAVA + " or later, and "
                + "none was found (-Dhivesink.trino.javaHome, TRINO_JAVA_HOME, /usr/lib/jvm)");
        try (TrinoServer trino = TrinoServer.start(java.get(), stack().workDir().resolve("trino"),
                stack().metastore().uri(), Map.of())) {
            assertReadersAgreeWithTheOracle(KnownLimitations.ALL, MatrixReader.trino("trino-476",
                    trino.sql(DATABASE)));
        }
    }
}
