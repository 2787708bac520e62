package io.hivesink.stack.security;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.security.TaskIdentity;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.connect.ConnectRelease;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.connect.PluginArchive;
import io.hivesink.stack.hive.MetastoreProcess;

/**
 * A kerberized warehouse, as production runs it: a KDC (Apache Kerby through {@link MiniKdc}), HDFS that accepts
 * only Kerberos and checks permissions (a MiniDFSCluster in this JVM, which logs this JVM in as its {@code hdfs}
 * superuser), a metastore in a child JVM that talks SASL (GSSAPI) only, with its own service principal and keytab and
 * acting on HDFS as the calling user (a proxy user), a KRaft broker, and stock Connect workers as OS processes that
 * load the plugin zip and know nothing of Kerberos but the KDC's {@code krb5.conf}.
 *
 * <p>Tickets live as long as the stack is told ({@code ticketLifetime}), so that a test can outlast several of them.
 * Users are principals of the default realm with a keytab each ({@link #addUser}) and a warehouse directory only they
 * may enter ({@link #privateWarehouse}). This JVM must run nothing else that uses Hadoop: its security mode is set
 * JVM-wide.
 */
public final class KerberizedStack implements AutoCloseable {

    private static final String HOST = "localhost";

    private final Path workDir;
    private final MiniKdc kdc;
    private final MiniDFSCluster dfs;
    private final MetastoreProcess metastore;
    private final EmbeddedKafkaCluster kafka;
    private final Path pluginPath;
    private final Path hadoopConfDir;
    private final Configuration clientConf;
    private int workersStarted;

    private KerberizedStack(Path workDir, MiniKdc kdc, MiniDFSCluster dfs, MetastoreProcess metastore,
            EmbeddedKafkaCluster kafka, Path pluginPath, Path hadoopConfDir, Configuration clientConf) {
        this.workDir = workDir;
        this.kdc = kdc;
        this.dfs = dfs;
        this.metastore = metastore;
        this.kafka = kafka;
        this.pluginPath = pluginPath;
        this.hadoopConfDir = hadoopConfDir;
        this.clientConf = clientConf;
    }

    /** Starts everything afresh in {@code workDir}; every ticket the KDC issues lives {@code ticketLifetime}. */
    public static KerberizedStack start(Path workDir, Duration ticketLifetime) throws Exception {
        EmbeddedStack.deleteRecursively(workDir);
        Path keytabs = Files.createDirectories(workDir.resolve("keytabs"));
        Path pluginPath = PluginArchive.unpack(workDir.resolve("plugins"));

        Properties kdcConf = MiniKdc.createConf();
        kdcConf.setProperty(MiniKdc.MAX_TICKET_LIFETIME, Long.toString(ticketLifetime.toSeconds()));
        kdcConf.setProperty(MiniKdc.MIN_TICKET_LIFETIME, Long.toString(ticketLifetime.toSeconds()));
        MiniKdc kdc = new MiniKdc(kdcConf, Files.createDirectories(workDir.resolve("kdc")).toFile());
        kdc.start();
        MiniDFSCluster dfs = null;
        MetastoreProcess metastore = null;
        EmbeddedKafkaCluster kafka = null;
        try {
            String realm = kdc.getRealm();
            File hdfsKeytab = keytabs.resolve("hdfs.keytab").toFile();
            kdc.createPrincipal(hdfsKeytab, "hdfs/" + HOST, "HTTP/" + HOST);
            File hiveKeytab = keytabs.resolve("hive.keytab").toFile();
            kdc.createPrincipal(hiveKeytab, "hive/" + HOST);
            String hdfsPrincipal = "hdfs/" + HOST + "@" + realm;

            Configuration dfsConf = new Configuration();
            dfsConf.set("hadoop.security.authentication", "kerberos");
            dfsConf.set("hadoop.kerberos.min.seconds.before.relogin", "1");
            dfsConf.set("dfs.namenode.kerberos.principal", hdfsPrincipal);
            dfsConf.set("dfs.namenode.keytab.file", hdfsKeytab.getPath());
            dfsConf.set("dfs.datanode.kerberos.principal", hdfsPrincipal);
            dfsConf.set("dfs.datanode.keytab.file", hdfsKeytab.getPath());
            dfsConf.set("dfs.web.authentication.kerberos.principal", "HTTP/" + HOST + "@" + realm);
            dfsConf.set("dfs.web.authentication.kerberos.keytab", hdfsKeytab.getPath());
            dfsConf.setBoolean("dfs.block.access.token.enable", true);
            dfsConf.setBoolean("dfs.permissions.enabled", true);
            // a secure DataNode wants privileged ports or SASL on its data transfer; tests run unprivileged
            dfsConf.setBoolean("ignore.secure.ports.for.testing", true);
            // the metastore acts on HDFS as the user who called it
            dfsConf.set("hadoop.proxyuser.hive.hosts", "*");
            dfsConf.set("hadoop.proxyuser.hive.groups", "*");
            UserGroupInformation.setConfiguration(dfsConf);
            dfs = new MiniDFSCluster.Builder(dfsConf, workDir.resolve("hdfs").toFile()).numDataNodes(1).build();
            dfs.waitActive();
            String hdfsUri = dfs.getURI().toString();
            FileSystem fs = dfs.getFileSystem();
            fs.mkdirs(new org.apache.hadoop.fs.Path("/warehouse"), new FsPermission((short) 0755));
            for (String shared : List.of("/warehouse/managed", "/warehouse/external")) {
                org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(shared);
                fs.mkdirs(dir);
                fs.setPermission(dir, new FsPermission((short) 01777));
            }

            Map<String, String> metastoreConf = new LinkedHashMap<>();
            metastoreConf.put(MetastoreProcess.KRB5_CONF, kdc.getKrb5conf().getAbsolutePath());
            metastoreConf.put("hadoop.security.authentication", "kerberos");
            metastoreConf.put("hadoop.kerberos.min.seconds.before.relogin", "1");
            metastoreConf.put("dfs.namenode.kerberos.principal", hdfsPrincipal);
            metastoreConf.put("metastore.sasl.enabled", "true");
            // literal: the server would expand _HOST to the machine's name, which this keytab does not hold
            metastoreConf.put("metastore.kerberos.principal", "hive/" + HOST + "@" + realm);
            metastoreConf.put("metastore.kerberos.keytab.file", hiveKeytab.getPath());
            CompletableFuture<MetastoreProcess> metastoreStart = CompletableFuture.supplyAsync(
                    () -> EmbeddedStack.unchecked(() -> MetastoreProcess.start(workDir.resolve("metastore"), hdfsUri,
                            metastoreConf, MetastoreProcess.DEFAULT_START_TIMEOUT)));
            Properties brokerProps = new Properties();
            brokerProps.put("auto.create.topics.enable", "false");
            // tests send records stamped days back: the default 7-day retention would delete them under a consumer
            brokerProps.put("log.retention.ms", "-1");
            kafka = new EmbeddedKafkaCluster(1, brokerProps);
            kafka.start();
            metastore = metastoreStart.join();

            Map<String, String> clientSite = new LinkedHashMap<>();
            clientSite.put("hadoop.security.authentication", "kerberos");
            clientSite.put("dfs.namenode.kerberos.principal", hdfsPrincipal);
            // a ticket of minutes must be renewable within them; Hadoop's default waits 60 s between logins
            clientSite.put("hadoop.kerberos.min.seconds.before.relogin", "5");
            Path confDir = Files.createDirectories(workDir.resolve("hadoop-conf"));
            Files.writeString(confDir.resolve("core-site.xml"), siteXml(clientSite), StandardCharsets.UTF_8);
            Files.writeString(confDir.resolve("hdfs-site.xml"), siteXml(Map.of()), StandardCharsets.UTF_8);
            Configuration clientConf = new Configuration(false);
            clientSite.forEach(clientConf::set);
            return new KerberizedStack(workDir, kdc, dfs, metastore, kafka, pluginPath, confDir, clientConf);
        } catch (Exception | Error e) {
            stopQuietly(kafka, metastore, dfs, kdc);
            throw e;
        }
    }

    /** A principal {@code user@REALM} with a keytab of its own; returns the keytab. */
    public Path addUser(String user) throws Exception {
        Path keytab = workDir.resolve("keytabs").resolve(user + ".keytab");
        kdc.createPrincipal(keytab.toFile(), user);
        return keytab;
    }

    public String principal(String user) {
        return user + "@" + realm();
    }

    /** The KDC's realm, the default one in its {@code krb5.conf}. */
    public String realm() {
        return kdc.getRealm();
    }

    /** {@code /warehouse/<user>}, owned by {@code user} and closed to everyone else (0700). */
    public String privateWarehouse(String user) throws IOException {
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/warehouse/" + user);
        FileSystem fs = fileSystem();
        fs.mkdirs(dir);
        fs.setOwner(dir, user, "supergroup");
        fs.setPermission(dir, new FsPermission((short) 0700));
        return dir.toString();
    }

    /** A stock worker of a Connect cluster of its own, told only where the KDC is; logging at {@code logLevel}. */
    public ConnectWorkerProcess startWorker(String cluster, String logLevel) throws IOException {
        workersStarted++;
        String name = "worker-" + workersStarted + "-" + cluster;
        return ConnectWorkerProcess.start(ConnectRelease.KAFKA_4_1, name, workDir.resolve(name),
                kafka.bootstrapServers(), "hive-sink-" + cluster, pluginPath, Map.of(), Map.of(),
                List.of("-Djava.security.krb5.conf=" + kdc.getKrb5conf().getAbsolutePath()), logLevel);
    }

    /**
     * The configuration of a connector that runs as {@code user} (its keytab from {@link #addUser}), on the kerberized
     * HDFS and metastore, reading JSON records with schemas.
     */
    public Map<String, String> connectorConfig(String name, String user, Path keytab, String warehouseDir,
            String database, String topics) {
        Map<String, String> props = new HashMap<>();
        props.put("name", name);
        props.put("connector.class", "io.hivesink.HiveSinkConnector");
        props.put("topics", topics);
        props.put("fs.url", hdfsUri());
        props.put("hadoop.conf.dir", hadoopConfDir.toAbsolutePath().toString());
        props.put("warehouse.dir", warehouseDir);
        props.put("hive.metastore.uris", metastore.uri());
        props.put("hive.metastore.sasl.enabled", "true");
        props.put("hive.metastore.kerberos.principal", "hive/_HOST@" + kdc.getRealm());
        props.put("hadoop.kerberos.principal", principal(user));
        props.put("hadoop.kerberos.keytab", keytab.toAbsolutePath().toString());
        props.put("hive.database", database);
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("value.converter.schemas.enable", "true");
        // tests land small batches: close them a few seconds after their first record, not after five minutes
        props.put("batch.max.interval.ms", "2000");
        return props;
    }

    /** A metastore client logged in as {@code user} in this JVM, talking SASL as the connector does. */
    public ThriftMetastore metastoreAs(String user, Path keytab) {
        TaskIdentity identity = TaskIdentity.login(principal(user), keytab.toString(), clientConf);
        return ThriftMetastore.connect(new MetastoreSettings(List.of(metastore.uri()), false, "", "",
                "hive/_HOST@" + kdc.getRealm(), "auth", identity));
    }

    /** HDFS as its superuser ({@code hdfs}, this JVM's login user). */
    public FileSystem fileSystem() throws IOException {
        return dfs.getFileSystem();
    }

    public String hdfsUri() {
        return dfs.getURI().toString();
    }

    public EmbeddedKafkaCluster kafka() {
        return kafka;
    }

    public MetastoreProcess metastore() {
        return metastore;
    }

    /** See {@link EmbeddedStack#awaitCommittedToEnd}. */
    public void awaitCommittedToEnd(String connector, Duration timeout, List<String> topics) throws Exception {
        try (Admin admin = kafka.createAdminClient()) {
            EmbeddedStack.awaitCommittedToEnd(admin, connector, timeout, topics);
        }
    }

    private static String siteXml(Map<String, String> properties) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        properties.forEach((k, v) -> xml.append("  <property><name>").append(k).append("</name><value>").append(v)
                .append("</value></property>\n"));
        return xml.append("</configuration>\n").toString();
    }

    @Override
    public void close() {
        stopQuietly(kafka, metastore, dfs, kdc);
    }

    private static void stopQuietly(EmbeddedKafkaCluster kafka, MetastoreProcess metastore, MiniDFSCluster dfs,
            MiniKdc kdc) {
        for (AutoCloseable part : new AutoCloseable[] {
            kafka == null ? null : kafka::stop, metastore, dfs == null ? null : () -> dfs.shutdown(true),
            kdc == null ? null : kdc::stop}) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception e) {
                // shutting down: nothing left to do about it
            }
        }
    }
}
