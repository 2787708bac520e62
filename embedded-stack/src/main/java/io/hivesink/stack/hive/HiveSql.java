package io.hivesink.stack.hive;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Hive SQL through an embedded HiveServer2 (MapReduce in local mode) in a child JVM ({@code
 * io.hivesink.hivechild.HiveSqlMain}), against a running metastore: Hive 4.0.1 by default, or Hive 3.1.3 (the
 * {@code hive-child-3.1} module's jars, loaded through its launcher, see {@link #start(MetastoreRelease, Path, String,
 * String, Map, Duration)}), so that tests read tables as a Hive 3.1 deployment's own HiveServer2 does.
 *
 * <p>Files in {@code workDir}: {@code hive-sql.log} (Hive's log), {@code hive-sql.console.log} /
 * {@code hive-sql.stdout.log} (anything it printed), {@code conf/} (generated {@code hive-site.xml},
 * {@code core-site.xml}), {@code hive/} (scratch and local MapReduce dirs). Not thread-safe beyond one statement at a
 * time (calls are serialized).
 */
public final class HiveSql implements AutoCloseable {

    /** Override with the system property {@code hivesink.hive.startTimeoutSeconds}. */
    public static final Duration DEFAULT_START_TIMEOUT =
            Duration.ofSeconds(Long.getLong("hivesink.hive.startTimeoutSeconds", 180));
    /** Override with the system property {@code hivesink.hive.queryTimeoutSeconds}. */
    public static final Duration DEFAULT_QUERY_TIMEOUT =
            Duration.ofSeconds(Long.getLong("hivesink.hive.queryTimeoutSeconds", 300));

    private static final String MAIN = "io.hivesink.hivechild.HiveSqlMain";

    /** Column names and rows of one statement. Values are strings as Hive renders them; SQL NULL is null. */
    public record Result(List<String> columns, List<List<String>> rows) {
    }

    private final HiveChildJvm jvm;
    private final Duration startupTime;
    private volatile Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private boolean broken;

    private HiveSql(HiveChildJvm jvm, Duration startupTime) {
        this.jvm = jvm;
        this.startupTime = startupTime;
    }

    /**
     * Starts the Hive child and opens its session.
     *
     * @param workDir      scratch and log directory (created if missing)
     * @param metastoreUri e.g. {@link MetastoreProcess#uri()}
     * @param defaultFs    e.g. {@code hdfs://localhost:PORT}
     * @throws HiveChildException if it does not come up; the message holds the tail of its log
     */
    public static HiveSql start(Path workDir, String metastoreUri, String defaultFs) {
        return start(workDir, metastoreUri, defaultFs, Map.of(), DEFAULT_START_TIMEOUT);
    }

    /** As {@link #start(Path, String, String)} with extra Hive/Hadoop settings and a start timeout. */
    public static HiveSql start(Path workDir, String metastoreUri, String defaultFs, Map<String, String> extraConf,
            Duration startTimeout) {
        return start(MetastoreRelease.HIVE_4_0, workDir, metastoreUri, defaultFs, extraConf, startTimeout);
    }

    /**
     * As {@link #start(Path, String, String, Map, Duration)}, on HiveServer2 of the given release: {@link
     * MetastoreRelease#HIVE_4_0} (4.0.1) or {@link MetastoreRelease#HIVE_3_1} (3.1.3; no S3A on its classpath).
     * HiveServer2 3.1.3 asks its metastore to prune partitions by a filter expression that only hive-exec can
     * evaluate: against a 3.1 metastore, start that one with {@link MetastoreProcess#HIVE_EXEC}, or queries with a
     * {@code WHERE} on a partition column fail.
     *
     * @throws IllegalArgumentException for a release without a HiveServer2 here (2.3)
     */
    public static HiveSql start(MetastoreRelease release, Path workDir, String metastoreUri, String defaultFs,
            Map<String, String> extraConf, Duration startTimeout) {
        if (release == MetastoreRelease.HIVE_2_3) {
            throw new IllegalArgumentException("No HiveServer2 " + release.version() + " here: 4.0.1 or 3.1.3");
        }
        Path dir = workDir.toAbsolutePath();
        Path confDir = dir.resolve("conf");
        try {
            java.nio.file.Files.createDirectories(confDir);
        } catch (IOException e) {
            throw new HiveChildException("cannot create " + confDir, e);
        }
        List<String> args = new ArrayList<>(List.of(
                "workDir=" + dir,
                "metastoreUri=" + metastoreUri,
                "defaultFs=" + defaultFs));
        extraConf.forEach((k, v) -> args.add("conf." + k + "=" + v));
        long start = System.nanoTime();
        HiveChildJvm jvm = release == MetastoreRelease.HIVE_3_1
                ? HiveChildJvm.startHive31("hive-sql", dir, MAIN, "1g", List.of(confDir), args)
                : HiveChildJvm.start("hive-sql", dir, MAIN, "1g", List.of(confDir), args);
        MetastoreProcess.awaitReady(jvm, startTimeout, "Hive SQL " + release.version());
        return new HiveSql(jvm, Duration.ofNanos(System.nanoTime() - start));
    }

    /** Default {@link #DEFAULT_QUERY_TIMEOUT}. */
    public HiveSql queryTimeout(Duration timeout) {
        this.queryTimeout = timeout;
        return this;
    }

    /** Rows of a query; values as Hive renders them ({@code ResultSet.getString}), SQL NULL as null. */
    public List<List<String>> query(String sql) {
        return run(sql).rows();
    }

    /** Runs a statement that returns no rows (DDL, {@code INSERT}, {@code SET}...). */
    public void execute(String sql) {
        run(sql);
    }

    /**
     * Runs one statement (a trailing {@code ;} is fine).
     *
     * @throws HiveSqlException   if Hive rejects it (message = Hive's); the session stays usable
     * @throws HiveChildException on timeout or if the child died; the child is stopped and this object unusable
     */
    public synchronized Result run(String sql) {
        if (broken) {
            throw new HiveChildException("this HiveSql is closed or its child JVM failed earlier (work dir "
                    + jvm.workDir() + ")");
        }
        Duration timeout = queryTimeout;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            jvm.send(sql);
            List<String> columns = List.of();
            List<List<String>> rows = new ArrayList<>();
            while (true) {
                long left = deadline - System.nanoTime();
                HiveChildJvm.Line line = left <= 0 ? null : jvm.next(Duration.ofNanos(left));
                if (line == null) {
                    throw fail("did not answer within " + HiveChildJvm.format(timeout), sql, null);
                }
                String type = line.type();
                if (type == null) {
                    throw fail("exited (status " + jvm.exitStatus() + ")", sql, null);
                }
                switch (type) {
                    case "COLS" -> columns = Collections.unmodifiableList(line.fields());
                    case "ROW" -> rows.add(Collections.unmodifiableList(line.fields()));
                    case "OK" -> {
                        return new Result(columns, Collections.unmodifiableList(rows));
                    }
                    case "ERR" -> throw new HiveSqlException(sql, line.field(0));
                    default -> throw fail("sent an unexpected line " + line, sql, null);
                }
            }
        } catch (IOException e) {
            throw fail("cannot be written to (" + e.getMessage() + ")", sql, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw fail("interrupted", sql, e);
        }
    }

    private HiveChildException fail(String what, String sql, Throwable cause) {
        broken = true;
        String tail = jvm.logTail();
        jvm.kill();
        return new HiveChildException("The Hive SQL child JVM (pid " + jvm.pid() + ", work dir " + jvm.workDir()
                + ") " + what + "; it is stopped. Statement: " + sql + tail, cause);
    }

    /** From launch to the open session. */
    public Duration startupTime() {
        return startupTime;
    }

    /** Hive's log file. */
    public Path logFile() {
        return jvm.logFile();
    }

    /** Closes the child's stdin (it exits), waits up to 10 s, then kills it. */
    @Override
    public synchronized void close() {
        broken = true;
        jvm.close();
    }
}
