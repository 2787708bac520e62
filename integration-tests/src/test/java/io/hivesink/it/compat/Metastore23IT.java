package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;

/**
 * {@link MetastoreCompatibility} on a stock Hive metastore 2.3.10 (auto-created schema), which checks
 * compare-and-set; read by Spark 4.0.1 through its built-in Hive 2.3.10 metastore client.
 */
class Metastore23IT extends MetastoreCompatibility {

    Metastore23IT() {
        super(MetastoreRelease.HIVE_2_3, Map.of(), Fencing.COMPARE_AND_SET, "2.x");
    }

    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return new SparkSql(metastoreUri, release(), workDir)::query;
    }
}
