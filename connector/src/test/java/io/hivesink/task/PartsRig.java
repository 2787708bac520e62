package io.hivesink.task;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.metastore.Metastore;
import io.hivesink.metrics.MetricsBackend;
import io.hivesink.metrics.TaskMetrics;

/**
 * Task parts as {@link TaskParts} builds them from a test config, on the local FileSystem under {@code dir} and a
 * metastore of the test's: for unit tests of one part of the task at a time.
 */
final class PartsRig {

    static final Schema EVENT = SchemaBuilder.struct().name("Event").field("id", Schema.INT64_SCHEMA).build();

    private final Path dir;
    private final Metastore metastore;
    final LongSupplier clock;
    final CycleRig.RecordingContext context = new CycleRig.RecordingContext();
    final List<Map<TopicPartition, Long>> seeks = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final List<AutoCloseable> opened = new ArrayList<>();

    PartsRig(Path dir, Metastore metastore, LongSupplier clock) {
        this.dir = dir;
        this.metastore = metastore;
        this.clock = clock;
    }

    /** A new instance of task {@code taskId} of connector {@code conn}, its committer started. */
    TaskParts task(int taskId) {
        return task(taskId, Map.of());
    }

    /** The same, with these properties added to the rig's. */
    TaskParts task(int taskId, Map<String, String> more) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "conn");
        props.put("hive-sink.task.id", Integer.toString(taskId));
        props.put("fs.url", "file:///");
        props.put("warehouse.dir", dir.resolve("warehouse").toString());
        props.put("staging.dir", dir.resolve("staging").toString());
        props.put("hive.metastore.uris", "thrift://metastore.invalid:9083");
        props.put("hive.database", "db");
        props.put("writer.threads", "2");
        props.putAll(more);
        FileSystem fs;
        try {
            fs = FileSystem.getLocal(new Configuration());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TaskParts parts = TaskParts.build(props, fs, metastore, pool, FaultInjector.NONE, clock);
        opened.add(parts.writers());
        parts.committer().start(Fencing.AUTO);
        return parts;
    }

    /** The task's metrics, registered over JMX. */
    TaskMetrics metrics(TaskParts parts) {
        TaskMetrics metrics = new TaskMetrics(MetricsBackend.forTask(context, parts.run().connector(),
                parts.run().task()), clock);
        opened.add(metrics);
        return metrics;
    }

    /** The task's share of a budget of {@code bytes} (0: the default share of a 4 GiB heap). */
    MemoryGate memory(TaskParts parts, long bytes) {
        String instance = parts.run().instance();
        MemoryGate memory = new MemoryGate(new MemoryBudget(1L << 32).join(instance, bytes), pauses(), clock,
                instance);
        opened.add(memory);
        return memory;
    }

    AssignmentPauses pauses() {
        return new AssignmentPauses(Fetching.of(context));
    }

    /** The pipeline of the task's closed batches, committing on the task's thread or on {@code lane}. */
    CommitPipeline pipeline(TaskParts parts, CommitLane lane) {
        return pipeline(parts, lane, memory(parts, 0), metrics(parts));
    }

    CommitPipeline pipeline(TaskParts parts, CommitLane lane, MemoryGate memory, TaskMetrics metrics) {
        return pipeline(parts, lane, memory, metrics, new WatermarkUpdates(parts.watermarks(), parts.committer(),
                clock, 0));
    }

    /** The same, marking time partitions done after each commit ({@link DoneMarking}). */
    CommitPipeline markingPipeline(TaskParts parts) {
        return pipeline(parts, null, memory(parts, 0), metrics(parts), new WatermarkUpdates(parts.watermarks(),
                parts.committer(), clock, 0, parts.doneMarking()::markDue));
    }

    private CommitPipeline pipeline(TaskParts parts, CommitLane lane, MemoryGate memory, TaskMetrics metrics,
            WatermarkUpdates watermarks) {
        return new CommitPipeline(parts.committer(), lane, parts.buffer(),
                new ConsumerPositions(seeks::add, new ResumePoints(10)), new TakenPartitions(pauses(), clock),
                memory, metrics,
                new ProgressLine("0 of conn", clock, metrics::lagMsByTable), null, watermarks);
    }

    /** Takes records of offsets [from, to) of {@code tp} into the task's open batch. */
    void take(TaskParts parts, TopicPartition tp, long from, long to) {
        for (long offset = from; offset < to; offset++) {
            parts.buffer().add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT,
                    new Struct(EVENT).put("id", offset), offset), clock.getAsLong());
        }
    }

    /** Takes records of offsets [from, to) of {@code tp} with these timestamps, in order, into the open batch. */
    void takeStamped(TaskParts parts, TopicPartition tp, long from, long... timestamps) {
        long offset = from;
        for (long timestamp : timestamps) {
            parts.buffer().add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT,
                    new Struct(EVENT).put("id", offset), offset, timestamp, TimestampType.CREATE_TIME),
                    clock.getAsLong());
            offset++;
        }
    }

    /** Closes what it opened. */
    void close() throws Exception {
        for (AutoCloseable part : opened) {
            part.close();
        }
        pool.shutdownNow();
    }
}
