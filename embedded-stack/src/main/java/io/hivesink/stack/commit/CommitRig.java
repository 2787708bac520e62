package io.hivesink.stack.commit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.TableLayouts;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.Ledger;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskRun;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.route.TableRouter;

/**
 * Task instances of the commit protocol without Connect around them, on a real FileSystem and metastore: for
 * protocol tests and the commit cost benchmark. Records are events of a topic, partitioned by their bucket.
 */
public record CommitRig(FileSystem fs, Metastore metastore, String database, String warehouse,
        ExecutorService pool) {

    public static final Schema EVENT = SchemaBuilder.struct().name("Event")
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .build();

    /** {@link #EVENT} evolved compatibly: a new optional field, which makes the table evolve (CASCADE). */
    public static final Schema EVENT_V2 = SchemaBuilder.struct().name("Event").version(2)
            .field("id", Schema.INT64_SCHEMA)
            .field("bucket", Schema.STRING_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    /** A new instance of a connector's task, started with the given fencing. */
    public Task task(String connector, int taskId, FaultInjector faults, Fencing fencing) {
        String instance = connector + "-t" + taskId + "-" + Long.toString(System.nanoTime(), 36);
        String staging = warehouse + "/.hive-sink-staging/" + connector;
        HiveTables tables = new HiveTables(metastore, database, warehouse);
        BatchBuffer buffer = new BatchBuffer(new TableRouter(Map.of()), new TableLayouts(database,
                List.of("bucket")), instance, pool, 4);
        ExactlyOnceCommitter committer = new ExactlyOnceCommitter(tables,
                new StagingArea(fs, new org.apache.hadoop.fs.Path(staging + "/task-" + taskId)),
                new ParallelContainerWriter(pool, 2, "snappy", -1, 1 << 20),
                new Ledger(tables, metastore, "hive_sink_ledger"),
                new StateTables(metastore, database, new StateTables.Deployment(connector,
                        connector.replace('-', '_'), database), staging + "/state", instance),
                faults, new TaskRun(connector, taskId, instance), System::currentTimeMillis);
        Fencing active = committer.start(fencing);
        return new Task(buffer, committer, active);
    }

    /** One task instance: what it buffers and how it commits. */
    public record Task(BatchBuffer buffer, ExactlyOnceCommitter committer, Fencing fencing) {

        public void add(TopicPartition tp, long offset, String bucket) {
            buffer.add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT,
                    new Struct(EVENT).put("id", offset).put("bucket", bucket), offset), 0);
        }

        /** A record of {@link #EVENT_V2}. */
        public void add(TopicPartition tp, long offset, String bucket, String note) {
            buffer.add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT_V2,
                    new Struct(EVENT_V2).put("id", offset).put("bucket", bucket).put("note", note), offset), 0);
        }

        public CommitSummary commit() {
            return committer.commit(buffer.drain());
        }
    }
}
