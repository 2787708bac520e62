package io.hivesink;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.batch.TableLayouts;
import io.hivesink.commit.BatchCommitter;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.SerialBatchCommitter;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.route.TableRouter;

/**
 * The task's lifecycle: it buffers records into the open batch, closes the batch when the flush policy says so or
 * when Connect commits offsets, hands it to the committer, and reports only committed offsets.
 */
public class HiveSinkTask extends SinkTask {

    private static final Logger log = LoggerFactory.getLogger(HiveSinkTask.class);

    private final LongSupplier clock;
    private FileSystem fs;
    private ExecutorService workers;
    private ParallelContainerWriter writer;
    private BatchBuffer buffer;
    private FlushPolicy flushPolicy;
    private BatchCommitter committer;
    /** A closed batch whose commit failed with a retriable error; committed before anything else happens. */
    private Batch pending;
    private final Map<TopicPartition, Long> committedOffsets = new HashMap<>();

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
        String taskId = props.getOrDefault(HiveSinkConnector.TASK_ID, "0");

        Configuration hadoopConf = HadoopFileSystems.configuration(config.hadoopConfDir());
        fs = HadoopFileSystems.open(config.fsUrl(), hadoopConf);
        String warehouseUri = fs.makeQualified(new Path(config.warehouseDir())).toString();
        StagingArea staging = new StagingArea(fs, fs.makeQualified(new Path(config.stagingDir())));

        Metastore metastore = ThriftMetastore.connect(new MetastoreSettings(config.metastoreUris(),
                config.metastoreSslEnabled(), config.metastoreTruststorePath(),
                config.metastoreTruststorePassword().value()), hadoopConf);
        HiveTables tables = new HiveTables(metastore, config.database(), warehouseUri);
        int threads = config.writerThreads();
        workers = Executors.newFixedThreadPool(threads, new WorkerThreads(connectorName + "-" + taskId));
        writer = new ParallelContainerWriter(workers, threads, config.codecName(), config.codecLevel(),
                config.syncIntervalBytes());
        committer = new SerialBatchCommitter(tables, metastore, staging, writer);

        // Unique per task run, so file names never collide with an earlier run's files.
        String batchIdPrefix = TableRouter.hiveSafeName(connectorName) + "-t" + taskId + "-"
                + Long.toString(clock.getAsLong(), 36);
        buffer = new BatchBuffer(new TableRouter(config.tableMap()),
                new TableLayouts(config.database(), config.partitionFields()), batchIdPrefix, workers,
                2 * threads + 2);
        flushPolicy = new FlushPolicy(config.batchMaxRecords(), config.batchMaxBytes(), config.batchMaxIntervalMs());
        log.info("hive-sink task {} of {} started: tables in {} on {}, metastore {}", taskId, connectorName,
                config.database(), warehouseUri, config.metastoreUris());
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        commitPending();
        for (SinkRecord record : records) {
            buffer.add(record, clock.getAsLong());
            flushIfDue();
        }
        buffer.submitPending(); // encode what came in while the consumer fetches more
        flushIfDue(); // the interval also elapses while no records arrive
    }

    private void flushIfDue() {
        String reason = flushPolicy.flushReason(buffer, clock.getAsLong());
        if (reason != null) {
            flush(reason);
        }
    }

    private void flush(String reason) {
        pending = buffer.drain();
        log.debug("Closing batch {} ({} records) on {}", pending.id(), pending.records(), reason);
        commitPending();
    }

    private void commitPending() {
        if (pending == null) {
            return;
        }
        CommitSummary summary = committer.commit(pending);
        committedOffsets.putAll(pending.nextOffsets());
        pending = null;
        log.info(summary.logLine());
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        commitPending();
        if (!buffer.isEmpty()) {
            flush("offset commit");
        }
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
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
        committedOffsets.keySet().removeAll(partitions);
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
        if (writer != null) {
            writer.close();
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
