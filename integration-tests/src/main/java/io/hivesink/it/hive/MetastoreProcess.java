package io.hivesink.it.hive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.hivesink.it.child.ChildClasspath;

/**
 * A Thrift Hive metastore 4.0.1 on embedded Derby in a child JVM ({@code io.hivesink.hivechild.MetastoreMain}).
 *
 * <p>Files in {@code workDir}: {@code metastore_db/} (Derby), {@code metastore.log} (its log),
 * {@code metastore.console.log} / {@code metastore.stdout.log} (anything it printed), {@code derby.log}.
 * The warehouse trees are {@code <defaultFs>/warehouse/managed} and {@code <defaultFs>/warehouse/external}.
 */
public final class MetastoreProcess implements AutoCloseable {

    /** How long to wait for the ready line; override with the system property {@code hivesink.metastore.startTimeoutSeconds}. */
    public static final Duration DEFAULT_START_TIMEOUT =
            Duration.ofSeconds(Long.getLong("hivesink.metastore.startTimeoutSeconds", 120));

    /**
     * Put this key (any value) in the extra settings to create the metastore's full schema from its own Derby script,
     * lock and transaction tables included, instead of DataNucleus auto-create (which leaves those out).
     */
    public static final String FULL_SCHEMA = "hivesink.fullSchema";

    private final HiveChildJvm jvm;
    private final String uri;
    private final String warehouseDir;
    private final String externalWarehouseDir;
    private final Duration startupTime;

    private MetastoreProcess(HiveChildJvm jvm, String uri, String warehouseDir, String externalWarehouseDir,
            Duration startupTime) {
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
        Path dir = workDir.toAbsolutePath();
        String fs = defaultFs.endsWith("/") ? defaultFs.substring(0, defaultFs.length() - 1) : defaultFs;
        String warehouse = fs + "/warehouse/managed";
        String external = fs + "/warehouse/external";
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            List<String> args = new ArrayList<>(List.of(
                    "workDir=" + dir,
                    "port=" + port,
                    "defaultFs=" + defaultFs,
                    "warehouseDir=" + warehouse,
                    "externalWarehouseDir=" + external,
                    "readyTimeoutSeconds=" + Math.max(1, startTimeout.toSeconds())));
            extraConf.forEach((k, v) -> {
                if (k.equals(FULL_SCHEMA)) {
                    args.add("schemaScript=" + ChildClasspath.hive().moduleDir()
                            .resolve("target/metastore-schema/hive-schema-4.0.0.derby.sql"));
                } else {
                    args.add("conf." + k + "=" + v);
                }
            });

            long start = System.nanoTime();
            HiveChildJvm jvm = HiveChildJvm.start("metastore", dir, "io.hivesink.hivechild.MetastoreMain", "768m",
                    List.of(), args);
            try {
                String uri = awaitReady(jvm, startTimeout.plusSeconds(15), "metastore");
                return new MetastoreProcess(jvm, uri, warehouse, external,
                        Duration.ofNanos(System.nanoTime() - start));
            } catch (HiveChildException e) {
                // someone else took the free port between our check and the child's bind: try another one
                if (attempt >= 3 || !e.getMessage().contains("port " + port + " is not free")) {
                    throw e;
                }
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

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
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

    /** Closes the child's stdin (it exits), waits up to 10 s, then kills it. */
    @Override
    public void close() {
        jvm.close();
    }
}
