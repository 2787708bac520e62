package io.hivesink.task;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.batch.MemoryBudget;
import io.hivesink.batch.TableLayouts;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.Ledger;
import io.hivesink.commit.StateDatabase;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskRun;
import io.hivesink.config.BatchConfig;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.config.InputConfig;
import io.hivesink.config.KerberosConfig;
import io.hivesink.config.MetastoreConfig;
import io.hivesink.config.PerTableConfig;
import io.hivesink.config.StorageConfig;
import io.hivesink.config.TableSettings;
import io.hivesink.config.TablesConfig;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagingArea;
import io.hivesink.fs.StorageUnavailableException;
import io.hivesink.input.ConfluentAvroInput;
import io.hivesink.input.ConnectInput;
import io.hivesink.input.RecordInput;
import io.hivesink.input.SchemaRegistryClient;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.MetastoreUnreachableException;
import io.hivesink.metastore.TableOptions;
import io.hivesink.metrics.MetricsBackend;
import io.hivesink.metrics.TaskMetrics;
import io.hivesink.route.Partitioners;
import io.hivesink.route.TableRouter;
import io.hivesink.security.SaslQop;
import io.hivesink.security.TaskIdentity;

/**
 * Everything one run of a task is made of, built from its configuration in one place, and closed in one place:
 * the FileSystem, the metastore client, the encoding pool and the file writers on it, the committer (started, so
 * fencing is settled) and the batch cycle that drives them. The task itself only follows Connect's lifecycle.
 */
public final class TaskAssembly implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TaskAssembly.class);

    private final FileSystem fs;
    private final Metastore metastore;
    private final ExecutorService workers;
    private final TableWriters writers;
    private final BatchCycle cycle;
    private final TaskIdentity identity;
    private final MemoryGate memory;
    private final TaskMetrics metrics;

    private TaskAssembly(FileSystem fs, Metastore metastore, ExecutorService workers, TableWriters writers,
            BatchCycle cycle, TaskIdentity identity, MemoryGate memory, TaskMetrics metrics) {
        this.metrics = metrics;
        this.identity = identity;
        this.memory = memory;
        this.fs = fs;
        this.metastore = metastore;
        this.workers = workers;
        this.writers = writers;
        this.cycle = cycle;
    }

    /**
     * Builds a task from its properties, connects and starts it; what was built so far is closed if a part fails.
     *
     * @param context the task's context, for its errant-record reporter (if the connector has one) and rewinds
     */
    public static TaskAssembly build(Map<String, String> props, MetastoreFactory metastores, LongSupplier clock,
            SinkTaskContext context) {
        RejectedRecords rejected = RejectedRecords.of(context, props);
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        String connectorName = props.getOrDefault("name", "hive-sink");
        int taskId = Integer.parseInt(props.getOrDefault(HiveSinkConfig.TASK_ID, "0"));
        String connectorTableName = TableRouter.hiveSafeName(connectorName);
        // Unique per task run: batch ids (and so file names) never collide with an earlier run's, and a zombie
        // run of this task is told apart from the live one.
        String instance = connectorTableName + "-t" + taskId + "-" + Long.toString(clock.getAsLong(), 36) + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);

        Configuration hadoopConf = HadoopFileSystems.configuration(config.storage().hadoopConfDir(),
                config.storage().umask());
        KerberosConfig kerberos = config.kerberos();
        TaskIdentity identity = kerberos.enabled()
                ? TaskIdentity.login(kerberos.principal(), kerberos.keytab(), hadoopConf)
                : TaskIdentity.WORKER;
        TaskRun run = new TaskRun(connectorName, taskId, instance);
        return identity.call(() -> assemble(config, props, run, hadoopConf, identity, metastores, clock, rejected,
                context));
    }

    /**
     * Connects to the metastore, waiting up to {@code waitMs} while none answers (pauses from 1 s, doubling up to
     * 30 s, each try logged): Connect does not restart a task whose start failed.
     */
    static Metastore connectWaiting(MetastoreFactory metastores, long waitMs, MetastoreSettings settings) {
        return StartWait.until("No metastore answers yet", waitMs, MetastoreUnreachableException.class,
                () -> metastores.connect(settings), (e, waited) -> new MetastoreUnreachableException(e.getMessage()
                        + waited, e));
    }

    /** Builds the parts, as the task's identity. */
    private static TaskAssembly assemble(HiveSinkConfig config, Map<String, String> props, TaskRun run,
            Configuration hadoopConf, TaskIdentity identity, MetastoreFactory metastores, LongSupplier clock,
            RejectedRecords rejected, SinkTaskContext context) {
        String connectorName = run.connector();
        int taskId = run.task();
        String instance = run.instance();
        String connectorTableName = TableRouter.hiveSafeName(connectorName);
        StorageConfig storage = config.storage();
        FileSystem fs = HadoopFileSystems.open(storage.fsUrl(), hadoopConf);
        Metastore metastore = null;
        ExecutorService workers = null;
        TableWriters writers = null;
        MemoryGate memory = null;
        TaskMetrics metrics = null;
        try {
            String warehouseUri = fs.makeQualified(new Path(storage.warehouseDir())).toString();
            Path connectorStaging = new Path(fs.makeQualified(new Path(storage.stagingDir())), connectorTableName);
            StagingArea staging = new StagingArea(fs, new Path(connectorStaging, "task-" + taskId));
            long startWaitMs = config.metastore().startWaitMs();
            StartWait.until("HDFS cannot be written yet", startWaitMs, StorageUnavailableException.class, () -> {
                staging.prepare(identity.describe());
                return null;
            }, (e, waited) -> new ConnectException(e.getMessage() + waited, e));

            MetastoreConfig metastoreConfig = config.metastore();
            metastore = connectWaiting(metastores, metastoreConfig.startWaitMs(), new MetastoreSettings(
                    metastoreConfig.uris(),
                    metastoreConfig.sslEnabled(), metastoreConfig.truststorePath(),
                    metastoreConfig.truststorePassword().value(),
                    metastoreConfig.saslEnabled() ? metastoreConfig.kerberosPrincipal() : null,
                    SaslQop.of(hadoopConf), identity));
            TablesConfig tablesConfig = config.tables();
            String database = tablesConfig.database();
            TableSettings tableSettings = TableSettings.of(props);
            HiveTables tables = new HiveTables(metastore, database, warehouseUri,
                    table -> tableOptions(fs, tableSettings, table));
            int threads = config.avro().writerThreads();
            workers = Executors.newFixedThreadPool(threads, new WorkerThreads(connectorName + "-" + taskId, identity));
            writers = new TableWriters(tableSettings, workers, threads, config.avro().syncIntervalBytes());
            StateTables.Deployment deployment = new StateTables.Deployment(connectorName, connectorTableName,
                    database);
            String stateLocation = new Path(connectorStaging, "state").toString();
            Metastore stateMetastore = metastore;
            StateTables states = StateDatabase.locate(metastore, tablesConfig.stateDatabase(), database,
                    warehouseUri, in -> new StateTables(stateMetastore, in, deployment, stateLocation, instance,
                            metastoreConfig.lockStaleMs()));
            ExactlyOnceCommitter committer = new ExactlyOnceCommitter(tables, staging, writers::forTable,
                    new Ledger(tables, metastore, tablesConfig.ledgerTable()), states, FaultInjector.fromEnvironment(),
                    run, clock);
            Fencing fencing = committer.start(Fencing.fromConfig(metastoreConfig.fencing()));
            log.info("Fencing by metastore {} ({}={}); exactly-once commits active",
                    fencing == Fencing.LOCKS ? "locks" : "compare-and-set", MetastoreConfig.METASTORE_FENCING,
                    metastoreConfig.fencing());

            // a bad partitioner class fails the start, not a batch
            Partitioners.create(config.partitioning().partitioners(), props);
            TableLayouts layouts = new TableLayouts(database,
                    table -> Partitioners.create(tableSettings.configFor(table).partitioners(),
                            tableSettings.settingsFor(table)),
                    (table, schema, partitionSpec) -> tables.ensureTable(table, schema, partitionSpec));
            BatchBuffer buffer = new BatchBuffer(recordInput(config), TableRouter.fromConfig(tablesConfig), layouts,
                    instance, workers, 2 * threads + 2, rejected != null,
                    config.avro().compressEarly() ? writers::forTable : null);
            PartitionPauses pauses = new PartitionPauses(PartitionFlow.of(context));
            memory = new MemoryGate(joinMemoryBudget(config.batch(), instance), pauses, clock, instance);
            metrics = new TaskMetrics(MetricsBackend.forTask(context, connectorName, taskId), clock);
            metastore.observeCalls(metrics);
            gauges(metrics, buffer, memory, pauses);
            BatchCycle cycle = cycle(config, tableSettings, buffer, committer, rejected, clock, context, pauses,
                    memory, metrics, run, identity);
            log.info("hive-sink task {} of {} started as {}: tables in {} on {}, ledger {}.{}, state in {}, "
                    + "metastore {}", taskId, connectorName, instance, database, warehouseUri, database,
                    tablesConfig.ledgerTable(), states.database(), metastoreConfig.uris());
            return new TaskAssembly(fs, metastore, workers, writers, cycle, identity, memory, metrics);
        } catch (RuntimeException | Error e) {
            new TaskAssembly(fs, metastore, workers, writers, null, identity, memory, metrics).close();
            throw e;
        }
    }

    /** The batch cycle and the parts it drives. */
    private static BatchCycle cycle(HiveSinkConfig config, TableSettings tableSettings, BatchBuffer buffer,
            ExactlyOnceCommitter committer, RejectedRecords rejected, LongSupplier clock, SinkTaskContext context,
            PartitionPauses pauses, MemoryGate memory, TaskMetrics metrics, TaskRun run, TaskIdentity identity) {
        BatchConfig batch = config.batch();
        String task = run.task() + " of " + run.connector();
        ConsumerPositions positions = new ConsumerPositions(context::offset, new ResumePoints(batch.maxRecords()));
        CommitLane lane = batch.pipelined() ? new CommitLane(run.connector() + "-" + run.task(), identity) : null;
        CommitPipeline pipeline = new CommitPipeline(committer, lane, buffer, positions, memory, metrics,
                new ProgressLine(task, clock, metrics::lagMsByTable), rejected);
        Claims claims = new Claims(committer, new OffsetsAhead(LogOffsets.of(context),
                batch.resumeAheadFromLogStart(), committer, metrics),
                new PostponedClaims(pauses, clock, config.metastore().startWaitMs()), pauses);
        BatchCloser closer = new BatchCloser(buffer, flushPolicy(config, tableSettings), pipeline, memory, metrics,
                clock);
        return new BatchCycle(buffer, closer, pipeline, positions, claims, memory, context::timeout, clock);
    }

    /** The metrics read from the parts that keep them. */
    private static void gauges(TaskMetrics metrics, BatchBuffer buffer, MemoryGate memory, PartitionPauses pauses) {
        metrics.gauge("open-batch-records", "Records in the open batch", buffer::recordCount);
        metrics.gauge("open-batch-bytes", "Encoded bytes in the open batch", buffer::byteCount);
        metrics.gauge("memory-budget-bytes", "The worker's memory budget for hive-sink batches",
                () -> memory.budget().limit());
        metrics.gauge("memory-budget-used-bytes", "What the batches of every hive-sink task of the worker hold",
                () -> memory.budget().used());
        metrics.gauge("memory-hold-backs-total", "Times the task paused its partitions because the budget was full",
                memory::timesHeldBack);
        metrics.gauge("paused-partitions", "Partitions the task holds paused (memory budget, metastore outage)",
                () -> pauses.pausedCount());
    }

    private static RecordInput recordInput(HiveSinkConfig config) {
        InputConfig input = config.input();
        RecordInput values = valueInput(config);
        if (input.nullValues() == InputConfig.NullValues.IGNORE) {
            log.info("Records with a null value (tombstones) are skipped ({}=ignore)",
                    InputConfig.BEHAVIOR_ON_NULL_VALUES);
            return values.ignoringTombstones();
        }
        return values;
    }

    private static RecordInput valueInput(HiveSinkConfig config) {
        InputConfig input = config.input();
        if (!input.confluentAvro()) {
            return ConnectInput.INSTANCE;
        }
        SchemaRegistryClient registry = new SchemaRegistryClient(new SchemaRegistryClient.Settings(
                input.registryUrls(), input.registryBasicAuth().value(), input.registryTruststoreLocation(),
                input.registryTruststorePassword().value(), input.registryRequestTimeout(),
                input.registryRetryAttempts(), input.registryRetryBackoff(), input.registryRetryBackoffMax()));
        log.info("Values are Avro framed by Confluent's serializer, passed through as they are; schemas from {}",
                input.registryUrls());
        return new ConfluentAvroInput(registry::schemaById, config.tables().routeField());
    }

    private static MemoryBudget.Share joinMemoryBudget(BatchConfig batch, String instance) {
        MemoryBudget budget = MemoryBudget.ofWorker();
        MemoryBudget.Share share = budget.join(instance, batch.memoryBudgetBytes());
        log.info("Batches of all hive-sink tasks in this worker may hold {} of its {} heap ({}={}{})",
                MemoryBudget.mib(budget.limit()), MemoryBudget.mib(budget.maxHeapBytes()),
                BatchConfig.MEMORY_BUDGET_BYTES, batch.memoryBudgetBytes(),
                batch.memoryBudgetBytes() == 0 ? ": " + Math.round(100 * MemoryBudget.DEFAULT_HEAP_FRACTION)
                        + "% of the max heap" : "; the smallest any task set holds");
        return share;
    }

    private static FlushPolicy flushPolicy(HiveSinkConfig config, TableSettings tableSettings) {
        Map<String, Long> tableLimits = new HashMap<>();
        for (String table : tableSettings.tablesSetting(BatchConfig.BATCH_MAX_RECORDS)) {
            tableLimits.put(table, (long) tableSettings.configFor(table).batchMaxRecords());
        }
        BatchConfig batch = config.batch();
        return new FlushPolicy(batch.maxRecords(), batch.maxBytes(), batch.maxIntervalMs(), batch.maxIdleMs(),
                tableLimits);
    }

    private static TableOptions tableOptions(FileSystem fs, TableSettings settings, String table) {
        PerTableConfig tableConfig = settings.configFor(table);
        String location = settings.location(table);
        return new TableOptions(location == null ? null : fs.makeQualified(new Path(location)).toString(),
                tableConfig.tableProperties(), tableConfig.schemaEvolution());
    }

    /** Drives the task's batches. */
    public BatchCycle cycle() {
        return cycle;
    }

    /** Who the task is to HDFS and the metastore: each call Connect makes runs as it. */
    public TaskIdentity identity() {
        return identity;
    }

    /**
     * Closes the metastore client, the writers, the pool and the FileSystem, each even if another fails, as the task's
     * identity.
     */
    @Override
    public void close() {
        identity.run(this::closeParts);
    }

    private void closeParts() {
        if (cycle != null) {
            cycle.close(); // a commit in flight finishes before what it uses closes
        }
        if (metrics != null) {
            metrics.close();
        }
        if (memory != null) {
            memory.close();
        }
        if (metastore != null) {
            try {
                metastore.close();
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
        try {
            fs.close();
        } catch (IOException e) {
            log.warn("Closing the FileSystem failed", e);
        }
    }
}
