package io.hivesink.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import io.hivesink.stack.connect.ConnectRelease;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.connect.PluginArchive;
import io.hivesink.stack.hive.HiveSql;
import io.hivesink.stack.hive.MetastoreProcess;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.s3.S3ProxyProcess;
import io.hivesink.stack.spark.SparkSql;

/**
 * The stack for crash and failover tests: a KRaft broker and a MiniDFSCluster in this JVM, the metastore and
 * HiveServer2 in child JVMs, and Connect workers started and killed by the test as OS processes of their own that
 * load the plugin zip from {@code plugin.path}.
 */
public final class FailoverStack implements AutoCloseable {

    private final Path workDir;
    private final MiniDFSCluster dfs;
    private final EmbeddedKafkaCluster kafka;
    private final MetastoreProcess metastore;
    private final CompletableFuture<HiveSql> hive;
    private final Path pluginPath;
    /** The store of the tables when they live on S3; null on HDFS. */
    private final S3ProxyProcess s3;
    private int workersStarted;

    private FailoverStack(Path workDir, MiniDFSCluster dfs, EmbeddedKafkaCluster kafka, MetastoreProcess metastore,
            CompletableFuture<HiveSql> hive, Path pluginPath, S3ProxyProcess s3) {
        this.s3 = s3;
        this.workDir = workDir;
        this.dfs = dfs;
        this.kafka = kafka;
        this.metastore = metastore;
        this.hive = hive;
        this.pluginPath = pluginPath;
    }

    public static FailoverStack start(Path workDir) throws Exception {
        return start(workDir, 1);
    }

    /**
     * As above, with {@code dataNodes} DataNodes; files are replicated to each (up to 3), so that tests can lose one.
     */
    public static FailoverStack start(Path workDir, int dataNodes) throws Exception {
        return start(workDir, dataNodes, true);
    }

    /**
     * As above; without HiveServer2 if {@code withHive} is false (a benchmark that reads only the metastore and HDFS
     * keeps its CPU), when {@link #hive()} fails.
     */
    public static FailoverStack start(Path workDir, int dataNodes, boolean withHive) throws Exception {
        return start(workDir, dataNodes, withHive, MetastoreRelease.HIVE_4_0, Map.of());
    }

    /**
     * As above, with a metastore of the given release on its full schema (lock and transaction tables included,
     * which a peer's Hive catalog locks tables with) where this project has its release's schema script (not 2.3's:
     * DataNucleus creates its schema). HiveServer2, if {@code withHive}, is 3.1.3 on a 3.1 metastore (which then
     * also evaluates its partition filters: {@link MetastoreProcess#HIVE_EXEC}), 4.0.1 on the others.
     */
    public static FailoverStack start(Path workDir, int dataNodes, boolean withHive, MetastoreRelease release)
            throws Exception {
        return start(workDir, dataNodes, withHive, release, release == MetastoreRelease.HIVE_2_3 ? Map.of()
                : Map.of(MetastoreProcess.FULL_SCHEMA, "true"));
    }

    /**
     * As {@link #start(Path)}, with the tables on S3: S3Proxy in a child JVM holds bucket {@value #S3_BUCKET}, the
     * metastore and HiveServer2 reach it through S3A, and {@link #connectorConfig} points the connector at it. HDFS
     * still runs, for what the tests read of it.
     */
    public static FailoverStack startOnS3(Path workDir) throws Exception {
        return startOnS3(workDir, true, MetastoreRelease.HIVE_4_0);
    }

    /**
     * As {@link #startOnS3(Path)}, with or without HiveServer2. The metastore must be 4.0 or 3.1: only their children
     * have hadoop-aws, without which a metastore refuses an {@code s3a://} location. 4.0 runs on DataNucleus's schema
     * (where it compares and sets), 3.1 on its release's full schema (where it takes locks), as {@link #start} runs it.
     */
    public static FailoverStack startOnS3(Path workDir, boolean withHive, MetastoreRelease release) throws Exception {
        return startOnS3(workDir, withHive, release, release == MetastoreRelease.HIVE_4_0 ? Map.of()
                : Map.of(MetastoreProcess.FULL_SCHEMA, "true"));
    }

    /** As above, with the metastore's own settings ({@link MetastoreProcess#FULL_SCHEMA}, say) added. */
    public static FailoverStack startOnS3(Path workDir, boolean withHive, MetastoreRelease release,
            Map<String, String> metastoreSettings) throws Exception {
        if (release == MetastoreRelease.HIVE_2_3) {
            throw new IllegalArgumentException("Tables on S3 need metastore 4.0 or 3.1, not " + release
                    + ": the 2.3 metastore child has no hadoop-aws to take s3a:// locations");
        }
        if (withHive && release == MetastoreRelease.HIVE_3_1) {
            throw new IllegalArgumentException("Tables on S3 with HiveServer2 need metastore 4.0: a 3.1 metastore gets"
                    + " HiveServer2 3.1.3, whose child has no hadoop-aws to read s3a://");
        }
        EmbeddedStack.deleteRecursively(workDir);
        Files.createDirectories(workDir);
        S3ProxyProcess s3 = S3ProxyProcess.start(workDir.resolve("s3proxy"));
        try {
            s3.createBucket(S3_BUCKET);
            Map<String, String> metastoreConf = new HashMap<>(s3.s3aSettings());
            metastoreConf.putAll(metastoreSettings);
            return start(workDir, 1, withHive, release, metastoreConf, s3);
        } catch (Exception | Error e) {
            s3.close();
            throw e;
        }
    }

    /** The bucket of the tables on S3. */
    public static final String S3_BUCKET = "warehouse";

    private static FailoverStack start(Path workDir, int dataNodes, boolean withHive, MetastoreRelease release,
            Map<String, String> metastoreConf) throws Exception {
        EmbeddedStack.deleteRecursively(workDir);
        Files.createDirectories(workDir);
        return start(workDir, dataNodes, withHive, release, metastoreConf, null);
    }

    private static FailoverStack start(Path workDir, int dataNodes, boolean withHive, MetastoreRelease release,
            Map<String, String> metastoreConf, S3ProxyProcess s3) throws Exception {
        Path pluginPath = PluginArchive.unpack(workDir.resolve("plugins"));
        Configuration hdfsConf = new Configuration();
        hdfsConf.setInt("dfs.replication", Math.min(3, dataNodes));
        MiniDFSCluster dfs = new MiniDFSCluster.Builder(hdfsConf, workDir.resolve("hdfs").toFile())
                .numDataNodes(dataNodes).build();
        dfs.waitActive();
        String hdfsUri = dfs.getURI().toString();
        // HiveServer2 of the metastore's release where there is one here, 3.1.3 or 4.0.1; 4.0.1 on a 2.3 metastore
        MetastoreRelease hiveRelease = release == MetastoreRelease.HIVE_3_1 ? release : MetastoreRelease.HIVE_4_0;
        Map<String, String> settings = new HashMap<>(metastoreConf);
        if (withHive && hiveRelease == MetastoreRelease.HIVE_3_1) {
            settings.put(MetastoreProcess.HIVE_EXEC, "true");
        }
        CompletableFuture<MetastoreProcess> metastoreStart = CompletableFuture.supplyAsync(
                () -> EmbeddedStack.unchecked(() -> MetastoreProcess.start(release, workDir.resolve("metastore"),
                        hdfsUri, settings, MetastoreProcess.DEFAULT_START_TIMEOUT)));
        Properties brokerProps = new Properties();
        brokerProps.put("auto.create.topics.enable", "false");
        // tests send records stamped days back: the default 7-day retention would delete them under a consumer
        brokerProps.put("log.retention.ms", "-1");
        // transactions (a peer sink's exactly-once producers) on a single broker
        brokerProps.put("transaction.state.log.replication.factor", "1");
        brokerProps.put("transaction.state.log.min.isr", "1");
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, brokerProps);
        kafka.start();
        MetastoreProcess metastore = metastoreStart.join();
        Map<String, String> hiveConf = new HashMap<>();
        if (s3 != null) {
            hiveConf.putAll(s3.s3aSettings());
            // Hive strips the keys it hides (S3A's credentials among them) from a query's MapReduce job, whose
            // reads then have no credentials: queries that aggregate or sort fail. The test's keys need no hiding.
            hiveConf.put("hive.conf.hidden.list", "javax.jdo.option.ConnectionPassword");
        }
        CompletableFuture<HiveSql> hive = withHive ? CompletableFuture.supplyAsync(
                () -> EmbeddedStack.unchecked(() -> HiveSql.start(hiveRelease, workDir.resolve("hive"),
                        metastore.uri(), hdfsUri, hiveConf, MetastoreProcess.DEFAULT_START_TIMEOUT)))
                : CompletableFuture.failedFuture(new IllegalStateException("this stack runs no HiveServer2"));
        return new FailoverStack(workDir, dfs, kafka, metastore, hive, pluginPath, s3);
    }

    /**
     * Starts one more worker of a Connect cluster, with extra environment (the fault switch) if given. Each test
     * uses a cluster of its own, so that a connector one test leaves behind never runs on another test's workers.
     */
    public ConnectWorkerProcess startWorker(String cluster, Map<String, String> extraProps,
            Map<String, String> environment) throws IOException {
        return startWorker(ConnectRelease.KAFKA_4_1, cluster, extraProps, environment);
    }

    /** As above, a worker of the given release. */
    public ConnectWorkerProcess startWorker(ConnectRelease release, String cluster, Map<String, String> extraProps,
            Map<String, String> environment) throws IOException {
        return startWorker(release, cluster, extraProps, environment, "INFO");
    }

    /** As above, logging at {@code logLevel} (see {@link ConnectWorkerProcess#start}). */
    public ConnectWorkerProcess startWorker(ConnectRelease release, String cluster, Map<String, String> extraProps,
            Map<String, String> environment, String logLevel) throws IOException {
        return startWorker(release, cluster, extraProps, environment, List.of(), logLevel);
    }

    /** As above, with extra JVM options (a heap size, a GC log), run in the worker's own directory. */
    public ConnectWorkerProcess startWorker(ConnectRelease release, String cluster, Map<String, String> extraProps,
            Map<String, String> environment, List<String> jvmOptions, String logLevel) throws IOException {
        workersStarted++;
        String name = "worker-" + workersStarted + "-" + cluster;
        return ConnectWorkerProcess.start(release, name, workDir.resolve(name), kafka.bootstrapServers(),
                "hive-sink-" + cluster, pluginPath, extraProps, environment, jvmOptions, logLevel);
    }

    /** The directory holding hive-sink's plugin, for a {@code plugin.path} that adds others. */
    public Path pluginPath() {
        return pluginPath;
    }

    /** The stack's directory: its parts' files, and room for a test's own. */
    public Path workDir() {
        return workDir;
    }

    public EmbeddedKafkaCluster kafka() {
        return kafka;
    }

    /** HDFS. */
    public org.apache.hadoop.fs.FileSystem fileSystem() throws IOException {
        return dfs.getFileSystem();
    }

    /** The file system of the tables {@link #connectorConfig} lands: HDFS, or the bucket through S3A on S3. */
    public org.apache.hadoop.fs.FileSystem tableFileSystem() throws IOException {
        if (s3 == null) {
            return dfs.getFileSystem();
        }
        Configuration conf = new Configuration();
        s3.s3aSettings().forEach(conf::set);
        return org.apache.hadoop.fs.FileSystem.get(java.net.URI.create("s3a://" + S3_BUCKET), conf);
    }

    public String hdfsUri() {
        return dfs.getURI().toString();
    }

    /** HDFS, to restart its NameNode or stop DataNodes (an outage). */
    public MiniDFSCluster dfs() {
        return dfs;
    }

    /**
     * Spark SQL reading the stack's tables through its metastore, with the Hive client of the metastore's release, and
     * with S3A when the tables are on S3. Its files go to {@code spark/} in the stack's directory.
     */
    public SparkSql spark() {
        SparkSql spark = new SparkSql(metastore.uri(), metastore.release(), workDir.resolve("spark"));
        return s3 == null ? spark : spark.onS3(s3.s3aSettings());
    }

    /** The S3 store of the tables, to stop and restart it (an outage) or count its requests; null on HDFS. */
    public S3ProxyProcess s3() {
        return s3;
    }

    /** The metastore child, to stop and restart it (an outage). */
    public MetastoreProcess metastore() {
        return metastore;
    }

    public HiveSql hive() {
        return hive.join();
    }

    /** The connector's settings that land its tables in the stack's bucket: fs.url and the s3.* keys. */
    public Map<String, String> s3ConnectorSettings() {
        if (s3 == null) {
            throw new IllegalStateException("this stack has no S3 store: start it with startOnS3");
        }
        return s3.connectorSettings(S3_BUCKET);
    }

    public Map<String, String> connectorConfig(String name, String database) {
        Map<String, String> props = new HashMap<>();
        props.put("name", name);
        props.put("connector.class", "io.hivesink.HiveSinkConnector");
        if (s3 == null) {
            props.put("fs.url", hdfsUri());
        } else {
            props.putAll(s3ConnectorSettings());
        }
        props.put("warehouse.dir", "/warehouse/hive-sink");
        props.put("hive.metastore.uris", metastore.uri());
        props.put("hive.database", database);
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("value.converter.schemas.enable", "true");
        // tests land small batches: close them a few seconds after their first record, not after five minutes
        props.put("batch.max.interval.ms", "2000");
        return props;
    }

    /**
     * Waits until the connector's consumer group has committed every partition of the topics to its end: the
     * connector reports offsets to Kafka only once their batches are committed in the metastore.
     */
    public void awaitCommittedToEnd(String connector, Duration timeout, List<String> topics) throws Exception {
        try (Admin admin = kafka.createAdminClient()) {
            EmbeddedStack.awaitCommittedToEnd(admin, connector, timeout, topics);
        } catch (AssertionError e) {
            printWorkerTroubles();
            throw e;
        }
    }

    /**
     * Prints the last warnings and errors of every worker's log: CI keeps the console, not the stack's directory,
     * and a stuck commit is diagnosed from them.
     */
    private void printWorkerTroubles() {
        try (var logs = Files.find(workDir, 2, (path, attributes) -> path.endsWith("worker.log"))) {
            for (Path log : logs.sorted().toList()) {
                List<String> troubles = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                        .filter(line -> line.contains(" WARN ") || line.contains(" ERROR ")).toList();
                System.out.println("Last warnings and errors of " + log + ":");
                troubles.subList(Math.max(0, troubles.size() - 40), troubles.size())
                        .forEach(line -> System.out.println("  " + line));
            }
        } catch (IOException | UncheckedIOException e) {
            System.out.println("Cannot read the workers' logs: " + e);
        }
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a Hive child still starting closes when it is up
    public void close() {
        if (hive.isDone() && !hive.isCompletedExceptionally()) {
            hive.join().close();
        } else {
            hive.thenAccept(HiveSql::close);
        }
        for (AutoCloseable part : new AutoCloseable[] {kafka::stop, metastore, () -> dfs.shutdown(true),
                () -> {
                    if (s3 != null) {
                        s3.close();
                    }
                }}) {
            try {
                part.close();
            } catch (Exception e) {
                // shutting down: nothing left to do about it
            }
        }
    }
}
