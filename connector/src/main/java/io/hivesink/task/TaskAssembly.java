package io.hivesink.task;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.TaskRun;
import io.hivesink.compact.CompactionRunner;
import io.hivesink.config.BatchConfig;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.config.KerberosConfig;
import io.hivesink.config.MetastoreConfig;
import io.hivesink.format.WriterTasks;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StorageUnavailableException;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.MetastoreUnreachableException;
import io.hivesink.metrics.MetricsBackend;
import io.hivesink.metrics.TaskMetrics;
import io.hivesink.security.SaslQop;
import io.hivesink.security.TaskIdentity;

/**
 * Everything one run of a task is made of, built from its configuration in one place, and closed in one place:
 * the FileSystem, the metastore client, the encoding pool, the parts that land batches ({@link TaskParts}), the
 * committer started (so fencing is settled), and Connect's side: the batch cycle, the memory budget and metrics.
 * The task itself only follows Connect's lifecycle.
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
    private final CompactionRunner compactions;

    private TaskAssembly(FileSystem fs, Metastore metastore, ExecutorService workers, TableWriters writers,
            BatchCycle cycle, TaskIdentity identity, MemoryGate memory, TaskMetrics metrics,
            CompactionRunner compactions) {
        this.compactions = compactions;
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
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        TaskRun run = TaskParts.run(props, clock);
        Configuration hadoopConf = HadoopFileSystems.configuration(config.storage().hadoopConfDir(),
                config.storage().umask());
        config.s3().applyTo(hadoopConf);
        KerberosConfig kerberos = config.kerberos();
        TaskIdentity identity = kerberos.enabled()
                ? TaskIdentity.login(kerberos.principal(), kerberos.keytab(), hadoopConf)
                : TaskIdentity.WORKER;
        Start start = new Start(config, props, run, hadoopConf, identity, clock, context);
        return identity.call(() -> assemble(start, metastores));
    }

    /** What a task starts from: its configuration, its run, its identity and Connect's context. */
    private record Start(HiveSinkConfig config, Map<String, String> props, TaskRun run, Configuration hadoopConf,
            TaskIdentity identity, LongSupplier clock, SinkTaskContext context) {
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
    private static TaskAssembly assemble(Start start, MetastoreFactory metastores) {
        HiveSinkConfig config = start.config();
        TaskRun run = start.run();
        TaskIdentity identity = start.identity();
        LongSupplier clock = start.clock();
        SinkTaskContext context = start.context();
        RejectedRecords rejected = RejectedRecords.of(context, start.props());
        Configuration hadoopConf = start.hadoopConf();
        FileSystem fs = HadoopFileSystems.open(config.storage().fsUrl(), hadoopConf);
        Metastore metastore = null;
        ExecutorService workers = null;
        TableWriters writers = null;
        MemoryGate memory = null;
        TaskMetrics metrics = null;
        CompactionRunner compactions = null;
        try {
            TaskParts.Storage storage = TaskParts.Storage.on(fs, config.storage(), run);
            MetastoreConfig metastoreConfig = config.metastore();
            StartWait.until("HDFS cannot be written yet", metastoreConfig.startWaitMs(),
                    StorageUnavailableException.class, () -> {
                        storage.staging().prepare(identity.describe());
                        return null;
                    }, (e, waited) -> new ConnectException(e.getMessage() + waited, e));
            metastore = connectWaiting(metastores, metastoreConfig.startWaitMs(), new MetastoreSettings(
                    metastoreConfig.uris(),
                    metastoreConfig.sslEnabled(), metastoreConfig.truststorePath(),
                    metastoreConfig.truststorePassword().value(),
                    metastoreConfig.saslEnabled() ? metastoreConfig.kerberosPrincipal() : null,
                    SaslQop.of(hadoopConf), identity));
            int threads = config.avro().writerThreads();
            workers = Executors.newFixedThreadPool(threads, new WorkerThreads(run.connector() + "-" + run.task(),
                    identity));
            TaskParts parts = TaskParts.assemble(config, start.props(), run, storage, metastore, workers,
                    FaultInjector.fromEnvironment(), clock, rejected != null);
            writers = parts.writers();
            Fencing fencing = parts.committer().start(Fencing.fromConfig(metastoreConfig.fencing()),
                    metastoreConfig.foreignLockWaitMs());
            log.info("Fencing by metastore {} ({}={}); exactly-once commits active",
                    fencing == Fencing.LOCKS ? "locks" : "compare-and-set", MetastoreConfig.METASTORE_FENCING,
                    metastoreConfig.fencing());
            metrics = new TaskMetrics(MetricsBackend.forTask(context, run.connector(), run.task()), clock);
            compactions = parts.compactions();
            if (compactions != null) {
                compactions.start(identity::wrap, metrics);
                metrics.gauge("compactions-waiting", "Time partitions marked done that wait for this task's "
                        + "compactions", compactions::waiting);
            }

            AssignmentPauses pauses = new AssignmentPauses(Fetching.of(context));
            memory = new MemoryGate(joinMemoryBudget(config.batch(), run.instance()), pauses, clock, run.instance());
            metastore.observeCalls(metrics);
            gauges(metrics, parts.buffer(), memory, pauses);
            metrics.gauge("open-uploads", "Uploads this task started on S3 and has not completed nor aborted yet",
                    storage.staging()::openUploads);
            BatchCycle cycle = cycle(config, parts, rejected, clock, context, pauses, memory, metrics, identity,
                    TableFeeds.subscribed(start.props()));
            log.info("hive-sink task {} of {} started as {}: tables in {} on {}, ledger {}.{}, state in {}, "
                    + "metastore {}", run.task(), run.connector(), run.instance(), config.tables().database(),
                    storage.warehouseUri(), config.tables().database(), config.tables().ledgerTable(),
                    parts.metastore().states().database(), metastoreConfig.uris());
            return new TaskAssembly(fs, metastore, workers, writers, cycle, identity, memory, metrics,
                    compactions);
        } catch (RuntimeException | Error e) {
            new TaskAssembly(fs, metastore, workers, writers, null, identity, memory, metrics, compactions)
                    .close();
            throw e;
        }
    }

    /** The batch cycle and the parts it drives. */
    private static BatchCycle cycle(HiveSinkConfig config, TaskParts parts, RejectedRecords rejected,
            LongSupplier clock, SinkTaskContext context, AssignmentPauses pauses, MemoryGate memory,
            TaskMetrics metrics, TaskIdentity identity, Predicate<String> subscribed) {
        BatchConfig batch = config.batch();
        TaskRun run = parts.run();
        ConsumerPositions positions = new ConsumerPositions(context::offset, new ResumePoints(batch.maxRecords()));
        CommitLane lane = batch.pipelined() ? new CommitLane(run.connector() + "-" + run.task(), identity) : null;
        TakenPartitions taken = new TakenPartitions(pauses, clock);
        WatermarkUpdates watermarks = new WatermarkUpdates(parts.watermarks(), parts.committer(), clock,
                WatermarkUpdates.FULL_READ_EVERY_MS, parts.doneMarking()::markDue);
        CommitPipeline pipeline = new CommitPipeline(parts.committer(), lane, parts.buffer(), positions, taken, memory,
                metrics, new ProgressLine(run.task() + " of " + run.connector(), clock, metrics::lagMsByTable),
                rejected, watermarks);
        LogOffsets logs = LogOffsets.of(context);
        Claims claims = new Claims(parts.committer(), new OffsetsAhead(logs,
                batch.resumeAheadFromLogStart(), parts.committer(), metrics),
                new PostponedClaims(pauses, clock, config.metastore().startWaitMs()), taken, pauses,
                new Probation(pauses, clock));
        BatchCloser closer = new BatchCloser(parts.buffer(), parts.flushPolicy(), pipeline, memory, metrics, clock);
        IdlePartitions idle = new IdlePartitions(config.done().idleMs(), logs, parts.committer(), watermarks, clock);
        KnownPartitions known = new KnownPartitions(logs, subscribed, parts.watermarks(), clock);
        return new BatchCycle(parts.buffer(), closer, pipeline, positions, claims, memory, context::timeout, clock,
                idle, known);
    }

    /** The metrics read from the parts that keep them. */
    private static void gauges(TaskMetrics metrics, BatchBuffer buffer, MemoryGate memory, AssignmentPauses pauses) {
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
        if (compactions != null) {
            compactions.close(); // a compaction in flight is given up while the metastore client is open
        }
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
            WriterTasks.shutdown(workers);
        }
        try {
            fs.close();
        } catch (IOException e) {
            log.warn("Closing the FileSystem failed", e);
        }
    }
}
