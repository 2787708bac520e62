package io.hivesink.stack.hive;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.child.ChildClasspath;
import io.hivesink.stack.child.FreePorts;
import io.hivesink.stack.child.Freeze;

/**
 * A Thrift Hive metastore on embedded Derby in a child JVM: 4.0.1 by default ({@code
 * io.hivesink.hivechild.MetastoreMain}), or an older {@link MetastoreRelease} through its own main class, configured
 * by a {@code hive-site.xml} / {@code metastore-site.xml} in {@code workDir/conf}.
 *
 * <p>Files in {@code workDir}: {@code metastore_db/} (Derby), {@code metastore.log} (its log),
 * {@code metastore.console.log} / {@code metastore.stdout.log} (anything it printed), {@code derby.log}.
 * The warehouse trees are {@code <defaultFs>/warehouse/managed} and {@code <defaultFs>/warehouse/external}.
 */
public final class MetastoreProcess implements AutoCloseable {

    /**
     * How long to wait for the ready line; override with the system property
     * {@code hivesink.metastore.startTimeoutSeconds}.
     */
    public static final Duration DEFAULT_START_TIMEOUT =
            Duration.ofSeconds(Long.getLong("hivesink.metastore.startTimeoutSeconds", 120));

    /**
     * Put this key (any value) in the extra settings to create the metastore's full schema from its own Derby script,
     * lock and transaction tables included, instead of DataNucleus auto-create (which leaves those out).
     */
    public static final String FULL_SCHEMA = "hivesink.fullSchema";

    /**
     * Put this key in the extra settings, with the path of a {@code krb5.conf}, for a metastore that talks SASL
     * (4.0.1 only): the child reads it before Hadoop's security starts.
     */
    public static final String KRB5_CONF = "hivesink.krb5Conf";

    /**
     * Put this key (any value) in the extra settings of a 3.1 metastore that HiveServer2 3.1.3 queries: HiveServer2
     * sends it partition filters as serialized expressions ({@code get_partitions_by_expr}) that only hive-exec can
     * evaluate, and a stock standalone metastore fails such a query. Adds hive-exec 3.1.3, the MapReduce classes it
     * loads and hive-child-3.1's serializer stand-in to its classpath, and names hive-exec's evaluator in {@code
     * metastore.expression.proxy}. Without it the metastore stays stock, as other engines (Trino, Spark) meet it.
     */
    public static final String HIVE_EXEC = "hivesink.hiveExec";

    private final MetastoreRelease release;
    /** Launches the child again on the same port and database (see {@link #restart}). */
    private final Supplier<HiveChildJvm> launcher;
    private final Duration startTimeout;
    private volatile HiveChildJvm jvm;
    private final String uri;
    private final String warehouseDir;
    private final String externalWarehouseDir;
    private final Duration startupTime;

    private MetastoreProcess(MetastoreRelease release, HiveChildJvm jvm, String uri, String warehouseDir,
            String externalWarehouseDir, Duration startupTime, Supplier<HiveChildJvm> launcher,
            Duration startTimeout) {
        this.release = release;
        this.launcher = launcher;
        this.startTimeout = startTimeout;
        this.jvm = jvm;
        this.uri = uri;
        this.warehouseDir = warehouseDir;
        this.externalWarehouseDir = externalWarehouseDir;
        this.startupTime = startupTime;
    }

    /**
     * Starts a metastore on a free port and waits until it answers.
     *
     * @param workDir  directory for the Derby database and the logs (created if missing)
     * @param defaultFs the file system for the warehouse, e.g. {@code hdfs://localhost:PORT} of a MiniDFSCluster
     * @throws HiveChildException if it does not come up within {@link #DEFAULT_START_TIMEOUT}; the message holds the
     *         tail of its log
     */
    public static MetastoreProcess start(Path workDir, String defaultFs) {
        return start(workDir, defaultFs, Map.of(), DEFAULT_START_TIMEOUT);
    }

    /**
     * As {@link #start(Path, String)}, with extra metastore settings ({@code metastore.*} or {@code hive.*} keys) and a
     * start timeout.
     */
    public static MetastoreProcess start(Path workDir, String defaultFs, Map<String, String> extraConf,
            Duration startTimeout) {
        return start(MetastoreRelease.HIVE_4_0, workDir, defaultFs, extraConf, startTimeout);
    }

    /** As {@link #start(Path, String, Map, Duration)}, for a metastore of the given release. */
    public static MetastoreProcess start(MetastoreRelease release, Path workDir, String defaultFs,
            Map<String, String> extraConf, Duration startTimeout) {
        if (extraConf.containsKey(HIVE_EXEC) && release != MetastoreRelease.HIVE_3_1) {
            throw new IllegalArgumentException(HIVE_EXEC + " is for metastore 3.1 only, not " + release);
        }
        Path dir = workDir.toAbsolutePath();
        String fs = defaultFs.endsWith("/") ? defaultFs.substring(0, defaultFs.length() - 1) : defaultFs;
        String warehouse = fs + "/warehouse/managed";
        String external = fs + "/warehouse/external";
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.next();
            long start = System.nanoTime();
            Supplier<HiveChildJvm> launcher = () -> release.legacy()
                    ? launchLegacy(release, dir, port, defaultFs, warehouse, external, extraConf, startTimeout)
                    : launch(dir, port, defaultFs, warehouse, external, extraConf, startTimeout);
            HiveChildJvm jvm = launcher.get();
            try {
                String uri = awaitUp(release, jvm, startTimeout);
                return new MetastoreProcess(release, jvm, uri, warehouse, external,
                        Duration.ofNanos(System.nanoTime() - start), launcher, startTimeout);
            } catch (HiveChildException e) {
                // someone else took the free port between our check and the child's bind (test JVMs run side by
                // side): try another one. An older release's own main does not say so; its child is killed by
                // now, so a port still bound is another process's
                if (attempt >= 3 || !(e.getMessage().contains("port " + port + " is not free")
                        || (release.legacy() && !FreePorts.canBind(port)))) {
                    throw e;
                }
            }
        }
    }

    private static String awaitUp(MetastoreRelease release, HiveChildJvm jvm, Duration startTimeout) {
        String uri = awaitReady(jvm, startTimeout.plusSeconds(15), "metastore " + release.version());
        if (release.legacy()) {
            awaitAnswer(jvm, uri, startTimeout);
        }
        return uri;
    }

    /** Stops the metastore at once (its JVM killed), as a crash would: calls fail until {@link #restart}. */
    public void kill() {
        jvm.kill();
    }

    /**
     * Freezes the metastore (SIGSTOP): it still accepts connections (the kernel does) and answers nothing, calls in
     * flight included, until {@link #thaw}; then it answers them all, as a metastore back from a long pause does.
     */
    public void freeze() {
        Freeze.stop(jvm.pid());
    }

    /** Lets a frozen metastore run on. */
    public void thaw() {
        Freeze.resume(jvm.pid());
    }

    /** Starts the metastore again on its port and database after {@link #kill}: clients find it at the same URI. */
    public void restart() {
        HiveChildJvm again = launcher.get();
        awaitUp(release, again, startTimeout);
        jvm = again;
    }

    private static HiveChildJvm launch(Path dir, int port, String defaultFs, String warehouse, String external,
            Map<String, String> extraConf, Duration startTimeout) {
        List<String> args = new ArrayList<>(List.of(
                "workDir=" + dir,
                "port=" + port,
                "defaultFs=" + defaultFs,
                "warehouseDir=" + warehouse,
                "externalWarehouseDir=" + external,
                "readyTimeoutSeconds=" + Math.max(1, startTimeout.toSeconds())));
        extraConf.forEach((k, v) -> {
            if (k.equals(FULL_SCHEMA)) {
                args.add("schemaScript=" + schemaScript(MetastoreRelease.HIVE_4_0));
            } else if (k.equals(KRB5_CONF)) {
                args.add("krb5Conf=" + v);
            } else {
                args.add("conf." + k + "=" + v);
            }
        });
        return HiveChildJvm.start("metastore", dir, "io.hivesink.hivechild.MetastoreMain", "768m", List.of(), args);
    }

    /**
     * An older release through its own {@code HiveMetaStore.main}, started by hive-child's {@code
     * LegacyMetastoreMain} (which needs nothing of Hive) on that release's jars. Both file names are written: 2.3
     * reads {@code hive-site.xml} with {@code hive.*} keys, 3.1 {@code metastore-site.xml} with {@code metastore.*}
     * keys; each ignores the other's.
     */
    private static HiveChildJvm launchLegacy(MetastoreRelease release, Path dir, int port, String defaultFs,
            String warehouse, String external, Map<String, String> extraConf, Duration startTimeout) {
        boolean fullSchema = extraConf.containsKey(FULL_SCHEMA);
        String jdbcUrl = "jdbc:derby:;databaseName=" + dir.resolve("metastore_db") + ";create=true";
        Map<String, String> site = new LinkedHashMap<>();
        site.put("javax.jdo.option.ConnectionURL", jdbcUrl);
        site.put("javax.jdo.option.ConnectionDriverName", "org.apache.derby.jdbc.EmbeddedDriver");
        site.put("datanucleus.schema.autoCreateAll", String.valueOf(!fullSchema));
        site.put("datanucleus.autoCreateSchema", String.valueOf(!fullSchema));
        site.put("datanucleus.fixedDatastore", String.valueOf(fullSchema));
        site.put("hive.metastore.schema.verification", "false");
        site.put("metastore.schema.verification", "false");
        site.put("fs.defaultFS", defaultFs);
        site.put("hive.metastore.warehouse.dir", warehouse);
        site.put("metastore.warehouse.dir", warehouse);
        site.put("hive.metastore.warehouse.external.dir", external);
        site.put("metastore.warehouse.external.dir", external);
        site.put("hive.metastore.event.db.notification.api.auth", "false");
        site.put("metastore.event.db.notification.api.auth", "false");
        site.put("hive.metastore.metrics.enabled", "false");
        site.put("metastore.metrics.enabled", "false");
        // 3.1's defaults name classes that live in hive-exec, which a standalone metastore does not have
        boolean hiveExec = extraConf.containsKey(HIVE_EXEC);
        site.put("metastore.expression.proxy", hiveExec
                ? "org.apache.hadoop.hive.ql.optimizer.ppr.PartitionExpressionForMetastore"
                : "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy");
        site.put("metastore.task.threads.always", "org.apache.hadoop.hive.metastore.events.EventCleanerTask");
        extraConf.forEach((k, v) -> {
            if (!k.startsWith("hivesink.")) {
                site.put(k, v);
            }
        });
        Path conf = dir.resolve("conf");
        try {
            Files.createDirectories(conf);
            String xml = siteXml(site);
            Files.writeString(conf.resolve("hive-site.xml"), xml, StandardCharsets.UTF_8);
            Files.writeString(conf.resolve("metastore-site.xml"), xml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the metastore configuration in " + conf, e);
        }
        List<String> args = new ArrayList<>(List.of(
                "workDir=" + dir,
                "port=" + port,
                "jdbcUrl=" + jdbcUrl,
                "readyTimeoutSeconds=" + Math.max(1, startTimeout.toSeconds())));
        if (fullSchema) {
            args.add("schemaScript=" + schemaScript(release));
        }
        Path launcher = ChildClasspath.hive().classesDir();
        ChildClasspath cp = ChildClasspath.metastore(release.module());
        if (hiveExec) {
            // after the metastore's own jars, as hive-exec (a fat jar) has copies of some; the stand-in before it
            ChildClasspath hive31 = ChildClasspath.hive31();
            cp = cp.append(hive31.classesDir() + File.pathSeparator + hive31.list("metastore-classpath.txt"));
        }
        return HiveChildJvm.start("metastore", dir, "io.hivesink.hivechild.LegacyMetastoreMain", "768m",
                List.of(conf, launcher), cp, args);
    }

    private static Path schemaScript(MetastoreRelease release) {
        if (release.schemaScript() == null) {
            throw new IllegalArgumentException(release + " has no Derby schema script here; start it without "
                    + FULL_SCHEMA);
        }
        return ChildClasspath.metastore(release.module()).moduleDir().resolve("target/metastore-schema")
                .resolve(release.schemaScript());
    }

    private static String siteXml(Map<String, String> properties) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        properties.forEach((k, v) -> xml.append("  <property><name>").append(escapeXml(k)).append("</name><value>")
                .append(escapeXml(v)).append("</value></property>\n"));
        return xml.append("</configuration>\n").toString();
    }

    private static String escapeXml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /**
     * The legacy launcher reports ready when the port accepts connections; the server may still be setting up
     * its schema, so wait for a real answer (through the connector's own client).
     */
    private static void awaitAnswer(HiveChildJvm jvm, String uri, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        MetastoreSettings settings = new MetastoreSettings(List.of(uri), false, "", "");
        while (true) {
            try (ThriftMetastore metastore = ThriftMetastore.connect(settings)) {
                metastore.databaseExists("default");
                return;
            } catch (RuntimeException e) {
                if (!jvm.isAlive() || System.nanoTime() > deadline) {
                    jvm.kill();
                    throw new HiveChildException("The metastore child JVM (work dir " + jvm.workDir()
                            + ") does not answer at " + uri + ": " + e.getMessage() + jvm.logTail(), e);
                }
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                jvm.kill();
                Thread.currentThread().interrupt();
                throw new HiveChildException("interrupted while waiting for the metastore", e);
            }
        }
    }

    /** Waits for {@code READY} (returns its first field) or fails with the child's log tail, stopping it. */
    static String awaitReady(HiveChildJvm jvm, Duration timeout, String what) {
        HiveChildJvm.Line line;
        try {
            line = jvm.next(timeout);
        } catch (InterruptedException e) {
            jvm.kill();
            Thread.currentThread().interrupt();
            throw new HiveChildException("interrupted while waiting for the " + what + " child JVM", e);
        }
        if (line != null && "READY".equals(line.type())) {
            return line.field(0);
        }
        String reason;
        if (line == null) {
            reason = "did not report ready within " + HiveChildJvm.format(timeout);
        } else if ("FAILED".equals(line.type())) {
            reason = "failed: " + line.field(0);
        } else if (line.type() == null) {
            reason = "exited (status " + jvm.exitStatus() + ") before it was ready";
        } else {
            reason = "sent an unexpected line " + line;
        }
        jvm.kill();
        throw new HiveChildException("The " + what + " child JVM (pid " + jvm.pid() + ", work dir " + jvm.workDir()
                + ") " + reason + jvm.logTail());
    }

    /** Which release this is. */
    public MetastoreRelease release() {
        return release;
    }

    /** {@code thrift://localhost:PORT}, for {@code hive.metastore.uris} / {@code metastore.thrift.uris}. */
    public String uri() {
        return uri;
    }

    /** The managed warehouse root ({@code metastore.warehouse.dir}), a full URI. */
    public String warehouseDir() {
        return warehouseDir;
    }

    /** The external warehouse root ({@code metastore.warehouse.external.dir}), a full URI. */
    public String externalWarehouseDir() {
        return externalWarehouseDir;
    }

    /** From launch to the ready line. */
    public Duration startupTime() {
        return startupTime;
    }

    /** The metastore's log file. */
    public Path logFile() {
        return jvm.logFile();
    }

    public boolean isAlive() {
        return jvm.isAlive();
    }

    /** The child JVM's process id (a restart gives a new one). */
    public long pid() {
        return jvm.pid();
    }

    /** Closes the child's stdin (it exits), waits up to 10 s, then kills it. */
    @Override
    public void close() {
        jvm.close();
    }
}
