package io.hivesink.hivechild;

import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hive.conf.HiveConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embedded HiveServer2 ({@code jdbc:hive2://}, MapReduce in local mode) answering SQL read from stdin.
 *
 * <p>Arguments ({@code key=value}): {@code workDir} (scratch, logs, generated {@code conf/hive-site.xml}),
 * {@code metastoreUri}, {@code defaultFs}; any {@code conf.KEY=VALUE} is added to the Hive configuration.
 *
 * <p>Protocol (see {@link ChildIo} for the prefix and field escaping). After start: {@code READY} or {@code
 * FAILED\tmessage} (then exit 1). Then each stdin line is one escaped SQL statement (a trailing {@code ;} is dropped);
 * the answer is {@code COLS\tname...}, zero or more {@code ROW\tvalue...} and {@code OK\trowCount}, or {@code
 * ERR\tmessage} with Hive's message. Values are {@code ResultSet.getString}, SQL NULL is {@code \N}. Exits at end of
 * stdin.
 */
public final class HiveSqlMain {

    private HiveSqlMain() {
    }

    public static void main(String[] args) {
        try {
            Map<String, String> a = ChildIo.parseArgs(args, "workDir", "metastoreUri", "defaultFs");
            Path workDir = Path.of(a.get("workDir")).toAbsolutePath();
            ChildIo.setUp(workDir, "hive-sql");
            run(workDir, a);
        } catch (Throwable t) {
            ChildIo.fail(t);
        }
    }

    private static void run(Path workDir, Map<String, String> a) throws Exception {
        Logger log = LoggerFactory.getLogger(HiveSqlMain.class);
        Path hiveDir = workDir.resolve("hive");
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("fs.defaultFS", a.get("defaultFs"));
        conf.put("hive.metastore.uris", a.get("metastoreUri"));
        conf.put("hive.metastore.schema.verification", "false");
        conf.put("hive.execution.engine", "mr");
        conf.put("mapreduce.framework.name", "local");
        conf.put("hive.exec.mode.local.auto", "true");
        conf.put("hive.exec.submitviachild", "false");
        // map joins build their hash table in a local task that would otherwise run `hadoop jar` (not installed)
        conf.put("hive.exec.submit.local.task.via.child", "false");
        conf.put("hive.server2.enable.doAs", "false");
        conf.put("hive.support.concurrency", "false");
        conf.put("hive.txn.manager", "org.apache.hadoop.hive.ql.lockmgr.DummyTxnManager");
        conf.put("hive.stats.autogather", "false");
        conf.put("hive.stats.column.autogather", "false");
        conf.put("hive.compute.query.using.stats", "false");
        conf.put("hive.server2.materializedviews.registry.impl", "DUMMY");
        // tests poll counts while data lands: never answer from a cache
        conf.put("hive.query.results.cache.enabled", "false");
        conf.put("hive.server2.logging.operation.enabled", "false");
        conf.put("hive.server2.logging.operation.log.location", hiveDir.resolve("operation-logs").toString());
        conf.put("hive.exec.scratchdir", hiveDir.resolve("scratch").toUri().toString());
        conf.put("hive.exec.local.scratchdir", hiveDir.resolve("local-scratch").toString());
        conf.put("hive.downloaded.resources.dir", hiveDir.resolve("resources").toString());
        conf.put("hive.querylog.location", hiveDir.resolve("querylog").toString());
        conf.put("hadoop.tmp.dir", hiveDir.resolve("hadoop-tmp").toString());
        conf.put("mapreduce.jobtracker.staging.root.dir", hiveDir.resolve("mr-staging").toUri().toString());
        conf.put("mapreduce.cluster.local.dir", hiveDir.resolve("mr-local").toString());
        for (Map.Entry<String, String> e : a.entrySet()) {
            if (e.getKey().startsWith("conf.")) {
                conf.put(e.getKey().substring("conf.".length()), e.getValue());
            }
        }
        Path confDir = workDir.resolve("conf");
        Files.createDirectories(confDir);
        Path hiveSite = confDir.resolve("hive-site.xml");
        writeSite(hiveSite, conf);
        // core-site.xml too: plain Hadoop Configurations see it when the launcher puts conf/ on the classpath
        writeSite(confDir.resolve("core-site.xml"), Map.of("fs.defaultFS", a.get("defaultFs")));
        HiveConf.setHiveSiteLocation(hiveSite.toUri().toURL());

        long start = System.nanoTime();
        Class.forName("org.apache.hive.jdbc.HiveDriver");
        Connection connection = DriverManager.getConnection("jdbc:hive2://", System.getProperty("user.name"), "");
        log.info("embedded HiveServer2 connected in {} ms", (System.nanoTime() - start) / 1_000_000);
        ChildIo.send("READY");

        InputStream in = new BufferedInputStream(System.in);
        String line;
        while ((line = ChildIo.readLine(in)) != null) {
            if (line.isBlank()) {
                continue;
            }
            String sql = stripSemicolon(ChildProtocol.unescape(line));
            answer(connection, sql, log);
        }
        log.info("end of stdin, exiting");
        ChildIo.exit(0);
    }

    private static void answer(Connection connection, String sql, Logger log) {
        long start = System.nanoTime();
        List<List<String>> rows = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            if (statement.execute(sql)) {
                try (ResultSet rs = statement.getResultSet()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    int n = meta.getColumnCount();
                    for (int i = 1; i <= n; i++) {
                        columns.add(meta.getColumnLabel(i));
                    }
                    while (rs.next()) {
                        List<String> row = new ArrayList<>(n);
                        for (int i = 1; i <= n; i++) {
                            row.add(rs.getString(i));
                        }
                        rows.add(row);
                    }
                }
            }
        } catch (Throwable t) {
            log.warn("statement failed: {}", sql, t);
            String message = t instanceof SQLException && t.getMessage() != null ? t.getMessage()
                    : ChildIo.describe(t);
            ChildIo.send("ERR", message);
            return;
        }
        log.info("statement done in {} ms, {} rows: {}", (System.nanoTime() - start) / 1_000_000, rows.size(), sql);
        ChildIo.send("COLS", columns);
        for (List<String> row : rows) {
            ChildIo.send("ROW", row);
        }
        ChildIo.send("OK", Integer.toString(rows.size()));
    }

    static String stripSemicolon(String sql) {
        String s = sql.strip();
        while (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1).strip();
        }
        return s;
    }

    private static void writeSite(Path file, Map<String, String> props) throws Exception {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by HiveSqlMain -->\n<configuration>\n");
            for (Map.Entry<String, String> e : props.entrySet()) {
                w.write("  <property><name>" + xml(e.getKey()) + "</name><value>" + xml(e.getValue())
                        + "</value></property>\n");
            }
            w.write("</configuration>\n");
        }
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
