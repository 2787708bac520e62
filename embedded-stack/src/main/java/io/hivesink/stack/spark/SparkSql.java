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
import java.util.TreeMap;

import io.hivesink.stack.ProcessLock;
import io.hivesink.stack.child.ChildClasspath;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.python.PythonVenv;

/**
 * Spark SQL (pyspark from PyPI, local mode, in its own process) reading tables through a Hive metastore, with the
 * metastore client Spark pairs with that release: its built-in Hive 2.3.10 client for 2.3, the Hive client of the
 * release fetched by Spark from Maven Central for 3.1 and 4.0 (once: about 480 MB for 3.1.3, kept in Spark's Ivy
 * cache, {@code ~/.ivy2.5.2}). Tables at {@code s3a://} take {@link #onS3}: S3A on the driver's classpath.
 */
public final class SparkSql {

    public static final String PYSPARK = "pyspark==4.0.1";
    private static final PythonVenv VENV = PythonVenv.at(Path.of("target", "spark-venv"), List.of(PYSPARK));

    private final String metastoreUri;
    private final MetastoreRelease release;
    private final Path workDir;
    /** Spark settings on top of the script's own, as {@code spark.*} keys. */
    private final Map<String, String> settings;

    public SparkSql(String metastoreUri, MetastoreRelease release, Path workDir) {
        this(metastoreUri, release, workDir, Map.of());
    }

    private SparkSql(String metastoreUri, MetastoreRelease release, Path workDir, Map<String, String> settings) {
        this.metastoreUri = metastoreUri;
        this.release = release;
        this.workDir = workDir.toAbsolutePath();
        this.settings = settings;
    }

    /**
     * This reader with S3A ({@code spark-s3a}'s jars, of the Hadoop release inside Spark) on the driver's classpath
     * and the given {@code fs.s3a.*} settings, so that it reads tables whose locations are {@code s3a://}.
     */
    public SparkSql onS3(Map<String, String> s3aSettings) {
        Map<String, String> withS3 = new TreeMap<>(settings);
        withS3.put("spark.driver.extraClassPath", ChildClasspath.sparkS3a().classpath());
        s3aSettings.forEach((key, value) -> withS3.put("spark.hadoop." + key, value));
        return new SparkSql(metastoreUri, release, workDir, withS3);
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
        Path settingsFile = workDir.resolve("spark-settings.txt");
        StringBuilder lines = new StringBuilder();
        settings.forEach((key, value) -> lines.append(key).append('=').append(value).append('\n'));
        Files.writeString(settingsFile, lines);
        List<String> command = new ArrayList<>(List.of(VENV.python().toString(), script.toString(), metastoreUri,
                release.version(), release == MetastoreRelease.HIVE_2_3 ? "builtin" : "maven", workDir.toString(),
                resultFile.toString(), settingsFile.toString()));
        command.addAll(Arrays.asList(statements));
        java.util.concurrent.Callable<String> run = () -> PythonVenv.run(command,
                Map.of("JAVA_HOME", System.getProperty("java.home"), "SPARK_LOCAL_IP", "127.0.0.1"),
                Duration.ofMinutes(10));
        // one Spark fetching a Hive client at a time: two writing it into Ivy's cache at once can corrupt it. Spark's
        // built-in client (2.3) is fetched by nobody, and waiting on the others' downloads cost minutes for nothing.
        String output = release == MetastoreRelease.HIVE_2_3 ? run.call()
                : ProcessLock.holding(Path.of("target", "spark.lock"), run);
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
