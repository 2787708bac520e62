package io.hivesink.hivechild;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf.ConfVars;
import org.apache.hadoop.hive.metastore.security.HadoopThriftAuthBridge;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Thrift Hive metastore 4 on an embedded Derby database, for tests and the demo.
 *
 * <p>Arguments ({@code key=value}): {@code workDir} (Derby database, logs), {@code port}, {@code defaultFs} (e.g.
 * {@code hdfs://localhost:8020}), {@code warehouseDir}, {@code externalWarehouseDir} (two different trees, full
 * URIs or paths on {@code defaultFs}). Optional {@code readyTimeoutSeconds} (default 120), {@code krb5Conf} (the
 * Kerberos configuration file, for a metastore with SASL on: {@code conf.metastore.sasl.enabled=true} and its
 * principal and keytab) and {@code conf.<key>=<value>} for any other setting.
 *
 * <p>Stdout protocol (see {@link ChildIo}): {@code READY\tthrift://localhost:PORT} once a client call succeeded, or
 * {@code FAILED\tmessage} and exit status 1. Exits when stdin reaches end of input. Logs go to
 * {@code workDir/metastore.log}.
 */
public final class MetastoreMain {

    private MetastoreMain() {
    }

    public static void main(String[] args) {
        try {
            Map<String, String> a = ChildIo.parseArgs(args, "workDir", "port", "defaultFs", "warehouseDir",
                    "externalWarehouseDir");
            Path workDir = Path.of(a.get("workDir")).toAbsolutePath();
            if (a.containsKey("krb5Conf")) {
                // read once, when Kerberos is first used: before anything of Hadoop's security is touched
                System.setProperty("java.security.krb5.conf", a.get("krb5Conf"));
            }
            ChildIo.setUp(workDir, "metastore");
            run(workDir, a);
        } catch (Throwable t) {
            ChildIo.fail(t);
        }
    }

    private static void run(Path workDir, Map<String, String> a) throws Exception {
        Logger log = LoggerFactory.getLogger(MetastoreMain.class);
        int port = Integer.parseInt(a.get("port"));
        String uri = "thrift://localhost:" + port;
        long readyTimeoutMs = TimeUnit.SECONDS.toMillis(Long.parseLong(a.getOrDefault("readyTimeoutSeconds", "120")));

        Configuration conf = MetastoreConf.newMetastoreConf();
        conf.set("fs.defaultFS", a.get("defaultFs"));
        String jdbcUrl = "jdbc:derby:;databaseName=" + workDir.resolve("metastore_db") + ";create=true";
        MetastoreConf.setVar(conf, ConfVars.CONNECT_URL_KEY, jdbcUrl);
        MetastoreConf.setVar(conf, ConfVars.CONNECTION_DRIVER, "org.apache.derby.jdbc.EmbeddedDriver");
        String schemaScript = a.get("schemaScript");
        if (schemaScript != null) {
            DerbySchema.create(jdbcUrl, Path.of(schemaScript));
            log.info("Created the metastore schema from {}", schemaScript);
        }
        MetastoreConf.setBoolVar(conf, ConfVars.AUTO_CREATE_ALL, schemaScript == null);
        MetastoreConf.setBoolVar(conf, ConfVars.SCHEMA_VERIFICATION, false);
        MetastoreConf.setVar(conf, ConfVars.WAREHOUSE, a.get("warehouseDir"));
        MetastoreConf.setVar(conf, ConfVars.WAREHOUSE_EXTERNAL, a.get("externalWarehouseDir"));
        MetastoreConf.setLongVar(conf, ConfVars.SERVER_PORT, port);
        MetastoreConf.setVar(conf, ConfVars.THRIFT_URIS, uri);
        // HiveServer2 asks for notification ids; no proxy-user set-up here
        MetastoreConf.setBoolVar(conf, ConfVars.EVENT_DB_NOTIFICATION_API_AUTH, false);
        MetastoreConf.setBoolVar(conf, ConfVars.METRICS_ENABLED, false);
        for (Map.Entry<String, String> e : a.entrySet()) {
            if (e.getKey().startsWith("conf.")) {
                conf.set(e.getKey().substring("conf.".length()), e.getValue());
            }
        }

        boolean sasl = MetastoreConf.getBoolVar(conf, ConfVars.USE_THRIFT_SASL);
        if (sasl) {
            // Kerberos mode is JVM-wide in Hadoop; the server logs its principal in from the keytab when it starts
            UserGroupInformation.setConfiguration(conf);
        }
        ChildIo.requireFreePort(port);

        AtomicBoolean serving = new AtomicBoolean();
        AtomicReference<Throwable> died = new AtomicReference<>();
        Thread server = new Thread(() -> {
            try {
                // false: no compactor or housekeeping threads, a test metastore does not need them
                HiveMetaStore.startMetaStore(port, HadoopThriftAuthBridge.getBridge(), conf, false, serving);
                died.compareAndSet(null, new IllegalStateException("metastore server returned"));
            } catch (Throwable t) {
                log.error("metastore server failed", t);
                died.compareAndSet(null, t);
            }
        }, "metastore-server");
        server.setDaemon(false);
        server.start();

        Configuration clientConf = MetastoreConf.newMetastoreConf();
        MetastoreConf.setVar(clientConf, ConfVars.THRIFT_URIS, uri);
        MetastoreConf.setLongVar(clientConf, ConfVars.THRIFT_CONNECTION_RETRIES, 1);
        if (sasl) {
            // the probe talks SASL as the server's own principal, logged in by then
            MetastoreConf.setBoolVar(clientConf, ConfVars.USE_THRIFT_SASL, true);
            MetastoreConf.setVar(clientConf, ConfVars.KERBEROS_PRINCIPAL,
                    MetastoreConf.getVar(conf, ConfVars.KERBEROS_PRINCIPAL));
        }
        long deadline = System.currentTimeMillis() + readyTimeoutMs;
        Exception last = null;
        while (true) {
            if (died.get() != null) {
                throw new IllegalStateException("metastore server failed to start", died.get());
            }
            // startMetaStore sets 'serving' only when it starts its background threads: probe the port instead
            if (serving.get() || ChildIo.portOpen(port)) {
                try {
                    HiveMetaStoreClient client = new HiveMetaStoreClient(clientConf);
                    try {
                        List<String> dbs = client.getAllDatabases();
                        log.info("metastore ready at {}, databases {}", uri, dbs);
                    } finally {
                        client.close();
                    }
                    break;
                } catch (Exception e) {
                    last = e;
                }
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("metastore not ready after " + readyTimeoutMs + " ms", last);
            }
            Thread.sleep(100);
        }
        ChildIo.send("READY", uri);
        ChildIo.exitOnStdinEof();
    }
}
