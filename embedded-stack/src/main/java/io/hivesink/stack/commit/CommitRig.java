package io.hivesink.stack.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.config.AvroConfig;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.config.MetastoreConfig;
import io.hivesink.config.PartitionConfig;
import io.hivesink.config.StorageConfig;
import io.hivesink.config.TablesConfig;
import io.hivesink.metastore.Metastore;
import io.hivesink.task.TaskParts;

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

    /**
     * A new instance of a connector's task, started with the given fencing: its parts built as a task builds them,
     * from the connector's properties ({@link #properties}).
     */
    public Task task(String connector, int taskId, FaultInjector faults, Fencing fencing) {
        return task(connector, taskId, faults, fencing, Map.of());
    }

    /** The same, with {@code overrides} put over the connector's {@link #properties}. */
    public Task task(String connector, int taskId, FaultInjector faults, Fencing fencing,
            Map<String, String> overrides) {
        Map<String, String> props = properties(connector, taskId);
        props.putAll(overrides);
        TaskParts parts = TaskParts.build(props, fs, metastore, pool, faults, System::currentTimeMillis);
        Fencing active = parts.committer().start(fencing);
        return new Task(parts.buffer(), parts.committer(), active);
    }

    /**
     * The properties of a connector whose tables and task state live in {@link #database} under {@link #warehouse},
     * partitioned by bucket, its staging beside the warehouse.
     */
    public Map<String, String> properties(String connector, int taskId) {
        Map<String, String> props = new HashMap<>();
        props.put("name", connector);
        props.put(HiveSinkConfig.TASK_ID, Integer.toString(taskId));
        props.put(StorageConfig.FS_URL, fs.getUri().toString());
        String warehouseDir = new org.apache.hadoop.fs.Path(warehouse).toUri().getPath();
        props.put(StorageConfig.WAREHOUSE_DIR, warehouseDir);
        props.put(StorageConfig.STAGING_DIR, warehouseDir + "/.hive-sink-staging");
        props.put(MetastoreConfig.METASTORE_URIS, "thrift://commit-rig.invalid:9083"); // the client is given
        props.put(TablesConfig.DATABASE, database);
        props.put(TablesConfig.STATE_DATABASE, database);
        props.put(PartitionConfig.PARTITION_FIELDS, "bucket");
        props.put(AvroConfig.AVRO_CODEC, "snappy");
        props.put(AvroConfig.WRITER_THREADS, "2");
        return props;
    }

    /** One task instance: what it buffers and how it commits. */
    public record Task(BatchBuffer buffer, ExactlyOnceCommitter committer, Fencing fencing) {

        public void add(TopicPartition tp, long offset, String bucket) {
            buffer.add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT,
                    new Struct(EVENT).put("id", offset).put("bucket", bucket), offset), 0);
        }

        /** Any record (it needs a {@code bucket} field, which partitions it). */
        public void add(SinkRecord record) {
            buffer.add(record, 0);
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
