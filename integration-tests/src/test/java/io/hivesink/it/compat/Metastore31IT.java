package io.hivesink.it.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import io.hivesink.commit.Fencing;
import io.hivesink.stack.hive.MetastoreProcess;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;
import io.hivesink.stack.trino.TrinoServer;
import io.hivesink.stack.trino.TrinoSql;

/**
 * {@link MetastoreCompatibility} on a stock Hive metastore 3.1.3 whose schema, lock and transaction tables included,
 * comes from that release's own Derby script: it ignores compare-and-set, so the connector fences with locks. Read
 * by Spark 4.0.1 through the Hive 3.1.3 metastore client it fetches from Maven Central, and by Trino 476 on this
 * standalone metastore, as Trino users run one.
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
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return new SparkSql(metastoreUri, release(), workDir)::query;
    }

    /**
     * Trino's form of the base class's columns of every type: arrays count from 1, binary as upper-case hex; floats
     * as the client protocol's JSON numbers (Trino's own text for them is 1.5E0).
     */
    private static final String TRINO_TYPES_COLUMNS = "cast(id as varchar), bucket, cast(i8 as varchar), "
            + "cast(i16 as varchar), cast(i32 as varchar), f32, f64, "
            + "if(flag, 'yes', 'no'), s, to_hex(b), cast(amount as varchar), cast(d as varchar), "
            + "cast(ts as varchar), cast(cardinality(arr) as varchar), element_at(arr, 1), element_at(arr, 2), "
            + "element_at(arr, 3), cast(element_at(m, 'k1') as varchar), cast(cardinality(m) as varchar), "
            + "cast(st.x as varchar), st.y, st.userId, cast(st.Deep.deepName as varchar)";

    /**
     * After the base class's reads, on what they landed: Trino reads the Parquet and ORC tables value by value and
     * with its predicate pushdown (NaN and -0.0 beside numbers), and fails on an Avro table as this metastore makes
     * it (a known limitation the task warns of:
     * {@code theTaskFindsOutWhetherTheMetastoreTellsTrinoAnAvroTablesFields}).
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void trinoReadsTheColumnarTablesThroughThisStandaloneMetastore() throws Exception {
        Optional<Path> java = TrinoServer.javaHome();
        Assumptions.assumeTrue(java.isPresent(), "Trino 476 needs Java " + TrinoServer.LEAST_JAVA + " or later, and "
                + "none was found (-Dhivesink.trino.javaHome, TRINO_JAVA_HOME, /usr/lib/jvm)");
        try (TrinoServer trino = TrinoServer.start(java.get(), workDir().resolve("trino"), metastoreUri(),
                Map.of())) {
            TrinoSql sql = trino.sql(DATABASE);
            for (String format : List.of("parquet", "orc")) {
                assertEquals(List.of("0/b0/null", "1/b1/null", "2/b0/null", "3/b1/null", "4/b1/note-4",
                        "5/b2/note-5", "6/b0/note-6"), sql.query("select id, bucket, note from " + format + "_events")
                        .stream().map(r -> r.get(0) + "/" + r.get(1) + "/" + r.get(2)).sorted().toList(),
                        format + ": old files through the evolved schema");
                assertEquals(ColumnarTables.TYPES_EXPECTED, sql.query("select " + TRINO_TYPES_COLUMNS + " from "
                        + format + "_types order by id"), format + ": every type, value by value");
                String floats = "select id from " + format + "_floats where ";
                assertEquals(List.of("3", "4", "5"), sortedIds(sql.query(floats + "d <> 1")), format + ": NaN");
                assertEquals(List.of("3", "4", "5"), sortedIds(sql.query(floats + "f <> 1")), format + ": NaN");
                assertEquals(List.of("4", "5"), sortedIds(sql.query(floats + "d = 0")), format + ": -0.0 and 0.0");
            }
            TrinoSql.TrinoException avro = assertThrows(TrinoSql.TrinoException.class,
                    () -> sql.query("select id from read_events"));
            assertTrue(avro.getMessage().contains("Storage schema reading not supported"), avro.getMessage());
        }
    }
}
