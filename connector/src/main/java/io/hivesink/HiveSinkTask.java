package io.hivesink;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.batch.TableLayouts;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.Ledger;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.config.TableSettings;
import io.hivesink.confluent.ConfluentAvroInput;
import io.hivesink.confluent.SchemaRegistryClient;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagingArea;
import io.hivesink.input.ConnectInput;
import io.hivesink.input.RecordInput;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.TableOptions;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.route.Partitioners;
import io.hivesink.route.TableRouter;

/**
 * The task's lifecycle: it claims its partitions and resumes them from the offsets committed in the metastore,
 * buffers records into the open batch, closes the batch when the flush policy says so or when Connect commits
 * offsets, hands it to the exactly-once committer, and reports only committed offsets back to Kafka.
 */
public class HiveSinkTask extends SinkTask {

    private static final Logger log = LoggerFactory.getLogger(HiveSinkTask.class);

    private final LongSupplier clock;
    private FileSystem fs;
    private ExecutorService workers;
    private TableWriters writers;
    private BatchBuffer buffer;
    private FlushPolicy flushPolicy;
    private ExactlyOnceCommitter committer;
    /** Null when the connector has no errant-record reporter: a bad record then fails the task. */
    private RejectedRecords rejectedRecords;
    /** A closed batch whose commit failed with a retriable error; committed before anything else happens. */
    private Batch pending;
    /** A bad record or fencing stopped the task: nothing more is committed. */
    private boolean stopped;

    public HiveSinkTask() {
        this(System::currentTimeMillis);
    }

    HiveSinkTask(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public String version() {
        return Versions.connector();
    }

    @Override
    public void start(Map<String, String> props) {
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        String connectorName = props.getOrDefault("name", "hive-sink");
        int taskId = Integer.parseInt(props.getOrDefault(HiveSinkConnector.TASK_ID, "0"));
        String connectorTableName = TableRouter.hiveSafeName(connectorName);
        // Unique per task run: batch ids (and so file names) never collide with an earlier run's, and a zombie
        // run of this task is told apart from the live one.
        String instance = connectorTableName + "-t" + taskId + "-" + Long.toString(clock.getAsLong(), 36) + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);

        Configuration hadoopConf = HadoopFileSystems.configuration(config.hadoopConfDir());
        fs = HadoopFileSystems.open(config.fsUrl(), hadoopConf);
        String warehouseUri = fs.makeQualified(new Path(config.warehouseDir())).toString();
        Path connectorStaging = new Path(fs.makeQualified(new Path(config.stagingDir())), connectorTableName);
        StagingArea staging = new StagingArea(fs, new Path(connectorStaging, "task-" + taskId));

        Metastore metastore = ThriftMetastore.connect(new MetastoreSettings(config.metastoreUris(),
                config.metastoreSslEnabled(), config.metastoreTruststorePath(),
                config.metastoreTruststorePassword().value()));
        TableSettings tableSettings = TableSettings.of(props);
        HiveTables tables = new HiveTables(metastore, config.database(), warehouseUri,
                table -> tableOptions(tableSettings, table));
        int threads = config.writerThreads();
        workers = Executors.newFixedThreadPool(threads, new WorkerThreads(connectorName + "-" + taskId));
        writers = new TableWriters(tableSettings, workers, threads, config.syncIntervalBytes());
        StateTables states = new StateTables(metastore, config.database(), connectorName, connectorTableName,
                new Path(connectorStaging, "state").toString(), instance);
        committer = new ExactlyOnceCommitter(tables, staging, writers::forTable,
                new Ledger(tables, metastore, config.ledgerTable()), states, FaultInjector.fromEnvironment(),
                connectorName, taskId, instance, clock, metastore);
        Fencing fencing = committer.start(Fencing.fromConfig(config.fencing()));
        log.info("Fencing by metastore {} ({}={}); exactly-once commits active",
                fencing == Fencing.LOCKS ? "locks" : "compare-and-set", HiveSinkConfig.METASTORE_FENCING,
                config.fencing());

        Partitioners.create(config.partitioners(), props); // a bad partitioner class fails the start, not a batch
        TableLayouts layouts = new TableLayouts(config.database(),
                table -> Partitioners.create(tableSettings.configFor(table).partitioners(),
                        tableSettings.settingsFor(table)),
                (table, schema, partitionSpec) -> tables.ensureTable(table, schema, partitionSpec));
        ErrantRecordReporter reporter = RejectedRecords.reporterOf(context);
        rejectedRecords = reporter == null ? null : new RejectedRecords(reporter);
        buffer = new BatchBuffer(recordInput(config), TableRouter.fromConfig(config), layouts, instance, workers,
                2 * threads + 2, reporter != null);
        flushPolicy = flushPolicy(config, tableSettings);
        log.info("hive-sink task {} of {} started as {}: tables in {} on {}, ledger {}.{}, metastore {}", taskId,
                connectorName, instance, config.database(), warehouseUri, config.database(), config.ledgerTable(),
                config.metastoreUris());
    }

    private static RecordInput recordInput(HiveSinkConfig config) {
        if (!config.confluentAvroInput()) {
            return ConnectInput.INSTANCE;
        }
        SchemaRegistryClient registry = new SchemaRegistryClient(new SchemaRegistryClient.Settings(
                config.schemaRegistryUrls(), config.schemaRegistryBasicAuth(),
                config.schemaRegistryTruststoreLocation(), config.schemaRegistryTruststorePassword(),
                config.schemaRegistryRequestTimeout(), config.schemaRegistryRetryAttempts(),
                config.schemaRegistryRetryBackoff(), config.schemaRegistryRetryBackoffMax()));
        log.info("Values are Avro framed by Confluent's serializer, passed through as they are; schemas from {}",
                config.schemaRegistryUrls());
        return new ConfluentAvroInput(registry::schemaById, config.routeField());
    }

    private static FlushPolicy flushPolicy(HiveSinkConfig config, TableSettings tableSettings) {
        Map<String, Long> tableLimits = new HashMap<>();
        for (String table : tableSettings.tablesSetting(HiveSinkConfig.BATCH_MAX_RECORDS)) {
            tableLimits.put(table, (long) tableSettings.configFor(table).batchMaxRecords());
        }
        return new FlushPolicy(config.batchMaxRecords(), config.batchMaxBytes(), config.batchMaxIntervalMs(),
                tableLimits);
    }

    /** Resumes newly assigned partitions where the metastore says they were committed, not where Kafka says. */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> committed = committer.claim(partitions);
        buffer.forget(partitions);
        if (!committed.isEmpty()) {
            context.offset(committed);
        }
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        try {
            commitPending();
            for (SinkRecord record : records) {
                buffer.add(record, clock.getAsLong());
                flushIfDue();
            }
            buffer.submitPending(); // encode what came in while the consumer fetches more
            flushIfDue(); // the interval also elapses while no records arrive
        } catch (DataException | TaskFencedException e) {
            // The task stops; the offset commit that Connect still makes while closing must not try this batch again.
            stopped = true;
            throw e;
        }
    }

    private void flushIfDue() {
        String reason = flushPolicy.flushReason(buffer, clock.getAsLong());
        if (reason != null) {
            flush(reason);
        }
    }

    private TableOptions tableOptions(TableSettings settings, String table) {
        HiveSinkConfig tableConfig = settings.configFor(table);
        String location = settings.location(table);
        return new TableOptions(location == null ? null : fs.makeQualified(new Path(location)).toString(),
                tableConfig.tableProperties(), tableConfig.schemaEvolution());
    }

    private void flush(String reason) {
        Batch batch = buffer.drain();
        if (rejectedRecords != null) {
            try {
                rejectedRecords.report(batch);
            } catch (RuntimeException e) {
                stopped = true;
                throw e;
            }
        }
        pending = batch;
        log.debug("Closing batch {} ({} records) on {}", pending.id(), pending.records(), reason);
        commitPending();
    }

    private void commitPending() {
        if (pending == null) {
            return;
        }
        try {
            CommitSummary summary = committer.commit(pending);
            pending = null;
            log.info(summary.logLine());
        } catch (TaskFencedException e) {
            pending = null;
            buffer.discard();
            throw e;
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (!stopped) {
            commitPending();
            if (!buffer.isEmpty()) {
                flush("offset commit");
            }
        }
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = committer.committedOffsets();
        for (TopicPartition tp : currentOffsets.keySet()) {
            Long committed = committedOffsets.get(tp);
            if (committed != null) {
                safe.put(tp, new OffsetAndMetadata(committed));
            }
        }
        return safe;
    }

    /**
     * Connect commits offsets (and so flushes) right before it closes partitions, so the buffer is normally empty
     * here. If records arrived in between, the open batch is dropped and the partitions that stay assigned are
     * rewound to its first records: nothing is written for offsets that Connect would not commit.
     */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (buffer == null) {
            return;
        }
        if (!buffer.isEmpty()) {
            Map<TopicPartition, Long> dropped = buffer.discard();
            Map<TopicPartition, Long> rewind = new HashMap<>(dropped);
            rewind.keySet().removeAll(partitions);
            if (!rewind.isEmpty()) {
                context.offset(rewind);
            }
            log.info("Dropped the open batch on partition close; re-reading {} from their first dropped offsets",
                    rewind.keySet());
        }
        buffer.forget(partitions);
    }

    @Override
    public void stop() {
        if (committer != null) {
            try {
                committer.close();
            } catch (RuntimeException e) {
                log.warn("Closing the metastore client failed", e);
            }
        }
        if (writers != null) {
            writers.close();
        }
        if (workers != null) {
            workers.shutdownNow();
        }
        if (fs != null) {
            try {
                fs.close();
            } catch (java.io.IOException e) {
                log.warn("Closing the FileSystem failed", e);
            }
        }
    }

}
