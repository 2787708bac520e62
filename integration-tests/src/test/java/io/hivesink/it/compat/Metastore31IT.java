package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.stack.hive.MetastoreProcess;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;

/**
 * {@link MetastoreCompatibility} on a stock Hive metastore 3.1.3 whose schema, lock and transaction tables included,
 * comes from that release's own Derby script: it ignores compare-and-set, so the connector fences with locks. Read
 * by Spark 4.0.1 through the Hive 3.1.3 metastore client it fetches from Maven Central (Trino 476 reads such a
 * standalone metastore in {@code ReaderMatrix31IT}).
 */
class Metastore31IT extends MetastoreCompatibility {

    Metastore31IT() {
        super(MetastoreRelease.HIVE_3_1, Map.of(MetastoreProcess.FULL_SCHEMA, "true"), Fencing.LOCKS, "3.x");
    }

    /** A stock standalone metastore, as Trino users run one: it has no SerDe to read an Avro table's fields with. */
    @Override
    boolean servesAvroFields() {
        return false;
    }

    @Override
    String readElsewhere() {
        return "ReaderMatrix31IT reads a 3.1.3 metastore's Avro, Parquet and ORC tables with HiveServer2 3.1.3, Spark "
                + "4.0.1 (this Hive 3.1.3 client) and Trino 476; Spark's file readers are read here on 2.3.10";
    }

    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return new SparkSql(metastoreUri, release(), workDir)::query;
    }
}
