package io.hivesink.stack.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.hivesink.stack.ProcessLock;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.python.PythonVenv;

/**
 * Spark SQL (pyspark from PyPI, local mode, in its own process) reading tables through a Hive metastore, with the
 * metastore client Spark pairs with that release: its built-in Hive 2.3.10 client for 2.3, the Hive client of the
 * release fetched by Spark from Maven Central for 3.1 and 4.0 (once: about 480 MB for 3.1.3, kept in Spark's Ivy
 * cache, {@code ~/.ivy2.5.2}).
 */
public final class SparkSql {

    public static final String PYSPARK = "pyspark==4.0.1";
    private static final PythonVenv VENV = PythonVenv.at(Path.of("target", "spark-venv"), List.of(PYSPARK));

    private final String metastoreUri;
    private final MetastoreRelease release;
    private final Path workDir;

    public SparkSql(String metastoreUri, MetastoreRelease release, Path workDir) {
        this.metastoreUri = metastoreUri;
        this.release = release;
        this.workDir = workDir.toAbsolutePath();
    }

    /** Runs the statements in one Spark session; per statement, its rows (values as text, SQL NULL as null). */
    public List<List<List<String>>> query(String... statements) throws Exception {
        Files.createDirectories(workDir);
        Path script = workDir.resolve("spark_sql.py");
        try (InputStream in = SparkSql.class.getResourceAsStream("/spark/spark_sql.py")) {
            if (in == null) {
                throw new IOException("spark/spark_sql.py is not on the classpath");
            }
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        Path resultFile = workDir.resolve("result.tsv");
        Files.deleteIfExists(resultFile);
        List<String> command = new ArrayList<>(List.of(VENV.python().toString(), script.toString(), metastoreUri,
                release.version(), release == MetastoreRelease.HIVE_2_3 ? "builtin" : "maven", workDir.toString(),
                resultFile.toString()));
        command.addAll(Arrays.asList(statements));
        // one Spark at a time on the machine: two fetching a Hive client into Ivy's cache at once can corrupt it
        String output = ProcessLock.holding(Path.of("target", "spark.lock"), () -> PythonVenv.run(command,
                Map.of("JAVA_HOME", System.getProperty("java.home"), "SPARK_LOCAL_IP", "127.0.0.1"),
                Duration.ofMinutes(10)));
        List<List<List<String>>> results = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        for (String line : Files.readAllLines(resultFile)) {
            if (line.equals("END")) {
                results.add(rows);
                rows = new ArrayList<>();
            } else if (line.startsWith("ROW\t") || line.equals("ROW")) {
                List<String> row = new ArrayList<>();
                for (String value : line.substring(Math.min(4, line.length())).split("\t", -1)) {
                    row.add(value.equals("\\N") ? null : value);
                }
                rows.add(row);
            }
        }
        if (results.size() != statements.length) {
            throw new AssertionError("Spark answered " + results.size() + " of " + statements.length
                    + " statements:\n" + output);
        }
        return results;
    }
}
