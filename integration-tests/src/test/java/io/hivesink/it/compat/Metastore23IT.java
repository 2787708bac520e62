package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.it.hive.MetastoreRelease;
import io.hivesink.it.spark.SparkSql;

/** {@link MetastoreCompatibility} on a stock Hive metastore 2.3.10 (auto-created schema): compare-and-set. */
class Metastore23IT extends MetastoreCompatibility {

    @Override
    MetastoreRelease release() {
        return MetastoreRelease.HIVE_2_3;
    }

    @Override
    Map<String, String> metastoreSettings() {
        return Map.of();
    }

    @Override
    Fencing expectedFencing() {
        return Fencing.COMPARE_AND_SET;
    }

    @Override
    String expectedRelease() {
        return "2.x";
    }

    /** Spark 4.0.1 (pyspark), with its built-in Hive 2.3.10 metastore client. */
    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        SparkSql spark = new SparkSql(metastoreUri, release(), workDir);
        return spark::query;
    }
}
