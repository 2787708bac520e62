package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.it.hive.MetastoreProcess;
import io.hivesink.it.hive.MetastoreRelease;
import io.hivesink.it.spark.SparkSql;

/** {@link MetastoreCompatibility} on a stock Hive metastore 3.1.3 whose schema comes from its own Derby script: locks. */
class Metastore31IT extends MetastoreCompatibility {

    @Override
    MetastoreRelease release() {
        return MetastoreRelease.HIVE_3_1;
    }

    @Override
    Map<String, String> metastoreSettings() {
        return Map.of(MetastoreProcess.FULL_SCHEMA, "true");
    }

    @Override
    Fencing expectedFencing() {
        return Fencing.LOCKS;
    }

    @Override
    String expectedRelease() {
        return "3.x";
    }

    /** Spark 4.0.1 (pyspark), with the Hive 3.1.3 metastore client it fetches from Maven Central. */
    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        SparkSql spark = new SparkSql(metastoreUri, release(), workDir);
        return spark::query;
    }
}
