package io.hivesink.it.readers;

import org.junit.jupiter.api.Test;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;

/**
 * The reader matrix on a Hive metastore 2.3.10 (where the connector compares and sets), read by Spark 4.0.1 through
 * its built-in Hive 2.3.10 client, as most Spark installs reach their metastore. No HiveServer2 2.3.10 here: Spark
 * stands in for Hive 2.3 (docs/compatibility.md says why).
 */
@OnMetastore(MetastoreRelease.HIVE_2_3)
class ReaderMatrix23IT extends ReaderMatrix {

    @Test
    void sparkReadsEveryFormatAsProduced() throws Exception {
        assertReadersAgreeWithTheOracle(KnownLimitations.ALL, MatrixReader.spark("spark-4.0.1/metastore-2.3.10",
                new SparkSql(stack().metastore().uri(), MetastoreRelease.HIVE_2_3,
                        stack().workDir().resolve("spark"))));
    }
}
