package io.hivesink.stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import io.hivesink.stack.hive.HiveSql;
import io.hivesink.stack.hive.MetastoreProcess;

/**
 * The whole stack the connector runs against, on this machine: a KRaft broker and a Connect worker cluster and a
 * MiniDFSCluster in this JVM, a Thrift metastore on Derby and HiveServer2 in child JVMs. Used by the integration
 * tests and by the demo.
 */
public final class EmbeddedStack implements AutoCloseable {

    private final Path workDir;
    private final MiniDFSCluster dfs;
    private final FileSystem fileSystem;
    private final MetastoreProcess metastore;
    private final EmbeddedConnectCluster connect;
    private final CompletableFuture<HiveSql> hive;
    private KafkaProducer<byte[], byte[]> producer;

    private EmbeddedStack(Path workDir, MiniDFSCluster dfs, FileSystem fileSystem, MetastoreProcess metastore,
            EmbeddedConnectCluster connect, CompletableFuture<HiveSql> hive) {
        this.workDir = workDir;
        this.dfs = dfs;
        this.fileSystem = fileSystem;
        this.metastore = metastore;
        this.connect = connect;
        this.hive = hive;
    }

    /**
     * Starts everything afresh in {@code workDir} (whatever an earlier run left there is removed). HiveServer2 keeps
     * starting in the background until {@link #hive()} is first called.
     */
    public static EmbeddedStack start(Path workDir) throws Exception {
        deleteRecursively(workDir);
        Files.createDirectories(workDir);
        MiniDFSCluster dfs = null;
        MetastoreProcess metastore = null;
        EmbeddedConnectCluster connect = null;
        try {
            Configuration conf = new Configuration();
            dfs = new MiniDFSCluster.Builder(conf, workDir.resolve("hdfs").toFile()).numDataNodes(1).build();
            dfs.waitActive();
            String hdfsUri = dfs.getURI().toString();
            FileSystem fs = dfs.getFileSystem();

            CompletableFuture<MetastoreProcess> metastoreStart = CompletableFuture.supplyAsync(
                    () -> unchecked(() -> MetastoreProcess.start(workDir.resolve("metastore"), hdfsUri)));
            connect = startConnect();
            metastore = join(metastoreStart);
            MetastoreProcess started = metastore;
            CompletableFuture<HiveSql> hive = CompletableFuture.supplyAsync(
                    () -> unchecked(() -> HiveSql.start(workDir.resolve("hive"), started.uri(), hdfsUri)));
            return new EmbeddedStack(workDir, dfs, fs, metastore, connect, hive);
        } catch (Exception | Error e) {
            closeQuietly(connect, metastore, dfs);
            throw e;
        }
    }

    private static EmbeddedConnectCluster startConnect() {
        Map<String, String> workerProps = new HashMap<>();
        workerProps.put("plugin.discovery", "service_load");
        workerProps.put("offset.flush.interval.ms", "5000");
        workerProps.put("scheduled.rebalance.max.delay.ms", "10000");
        Properties brokerProps = new Properties();
        brokerProps.put("auto.create.topics.enable", "false");
        // tests send records stamped days back: the default 7-day retention would delete them under a consumer
        brokerProps.put("log.retention.ms", "-1");
        EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder()
                .name("hive-sink-connect")
                .numWorkers(1)
                .numBrokers(1)
                .workerProps(workerProps)
                .brokerProps(brokerProps)
                .maskExitProcedures(true)
                .build();
        connect.start();
        return connect;
    }

    public EmbeddedConnectCluster connect() {
        return connect;
    }

    public String bootstrapServers() {
        return connect.kafka().bootstrapServers();
    }

    /** Base URL of the Connect REST API, e.g. http://localhost:8083/ */
    public String connectRestUrl() {
        String connectors = connect.endpointForResource("connectors");
        return connectors.substring(0, connectors.length() - "connectors".length());
    }

    public String hdfsUri() {
        return dfs.getURI().toString();
    }

    public FileSystem fileSystem() {
        return fileSystem;
    }

    public String metastoreUri() {
        return metastore.uri();
    }

    public Path workDir() {
        return workDir;
    }

    /** HiveServer2, waiting for it to finish starting if needed. */
    public HiveSql hive() {
        return join(hive);
    }

    /** Connector properties pointing at this stack, before the topics and the test's own settings. */
    public Map<String, String> connectorConfig(String name) {
        Map<String, String> props = new HashMap<>();
        props.put("name", name);
        props.put("connector.class", "io.hivesink.HiveSinkConnector");
        props.put("fs.url", hdfsUri());
        props.put("warehouse.dir", "/warehouse/hive-sink");
        props.put("hive.metastore.uris", metastoreUri());
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("value.converter.schemas.enable", "true");
        // tests land small batches: close them a few seconds after their first record, not after five minutes
        props.put("batch.max.interval.ms", "2000");
        return props;
    }

    /**
     * Waits until the connector's consumer group has committed every partition of {@code topics} up to its end: the
     * connector reports offsets only once their records are committed to Hive.
     */
    public void awaitCommittedToEnd(String connectorName, Duration timeout, String... topics) throws Exception {
        try (Admin admin = connect.kafka().createAdminClient()) {
            awaitCommittedToEnd(admin, connectorName, timeout, List.of(topics));
        } catch (AssertionError e) {
            String threads = ThreadDump.logThreadsOf(connectorName);
            throw new AssertionError(e.getMessage() + "; " + statusOf(connectorName) + "; its " + threads
                    + "; its last warnings: " + ThreadDump.lastWarningsOf(connectorName, 8), e);
        }
    }

    /** The connector's and its tasks' states as the REST API shows them, with a failed task's trace. */
    public String statusOf(String connectorName) {
        try {
            ConnectorStateInfo status = connect.connectorStatus(connectorName);
            StringBuilder text = new StringBuilder("connector ").append(connectorName).append(' ')
                    .append(status.connector().state());
            for (ConnectorStateInfo.TaskState task : status.tasks()) {
                text.append(", task ").append(task.id()).append(' ').append(task.state());
                if (task.trace() != null) {
                    text.append(": ").append(task.trace());
                }
            }
            return text.toString();
        } catch (RuntimeException e) {
            return "the status of connector " + connectorName + " could not be read: " + e;
        }
    }

    public static void awaitCommittedToEnd(Admin admin, String connectorName, Duration timeout, List<String> topics)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((topic, description) ->
                description.partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()),
                        OffsetSpec.latest())));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
        String group = "connect-" + connectorName;
        Map<TopicPartition, Long> lastSeen = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        try {
            await("connector " + connectorName + " to commit " + ends, timeout, () -> {
                Map<TopicPartition, OffsetAndMetadata> committed = unchecked(
                        () -> admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
                lastSeen.clear();
                committed.forEach((tp, offset) -> lastSeen.put(tp, offset.offset()));
                return ends.entrySet().stream().allMatch(e -> e.getValue() == 0
                        || (committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() >= e.getValue()));
            });
        } catch (AssertionError e) {
            // say where it stopped: which partitions lag tells a stuck task from a slow one, and where each log starts
            // now tells records deleted under the consumer (retention) from records never read
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            ends.keySet().forEach(tp -> earliest.put(tp, OffsetSpec.earliest()));
            Map<TopicPartition, Long> starts = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
            admin.listOffsets(earliest).all().get().forEach((tp, info) -> starts.put(tp, info.offset()));
            throw new AssertionError(e.getMessage() + "; committed at the deadline: " + lastSeen + "; logs start at "
                    + starts, e);
        }
    }

    public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(250);
        }
    }

    /** A producer of raw bytes to this stack's broker ({@link SampleData#producerSettings}), closed with the stack. */
    public synchronized KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = connect.kafka().createProducer(SampleData.producerSettings());
        }
        return producer;
    }

    /** Waits for a task of the connector to fail, and returns its stack trace as the Connect REST API shows it. */
    public String awaitFailedTaskTrace(String connector, Duration timeout) throws InterruptedException {
        String[] trace = new String[1];
        await("a task of " + connector + " to fail", timeout, () -> {
            try {
                for (ConnectorStateInfo.TaskState task : connect.connectorStatus(connector).tasks()) {
                    if ("FAILED".equals(task.state())) {
                        trace[0] = task.trace();
                        return true;
                    }
                }
            } catch (RuntimeException notYetThere) {
                // the connector is still being created
            }
            return false;
        });
        return trace[0];
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a Hive child still starting closes when it is up
    public void close() {
        HiveSql hiveSql = hive.isDone() && !hive.isCompletedExceptionally() ? hive.join() : null;
        if (!hive.isDone()) {
            hive.thenAccept(HiveSql::close);
        }
        synchronized (this) {
            closeQuietly(producer);
        }
        closeQuietly(hiveSql, connect, metastore, dfs);
    }

    private static void closeQuietly(Object... parts) {
        for (Object part : parts) {
            try {
                if (part instanceof EmbeddedConnectCluster c) {
                    c.stop();
                } else if (part instanceof MiniDFSCluster d) {
                    d.shutdown(true);
                } else if (part instanceof AutoCloseable c) {
                    c.close();
                }
            } catch (Exception e) {
                // shutting down: nothing left to do about it
            }
        }
    }

    public static void deleteRecursively(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        }
    }

    public interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    /** Runs code that throws checked exceptions where a lambda may not. */
    public static <T> T unchecked(ThrowingSupplier<T> supplier) {
        try {
            return supplier.get();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
