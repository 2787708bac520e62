package io.hivesink.task;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

import io.hivesink.metastore.InMemoryMetastore;

/**
 * Tasks of one connector as Connect drives them, built by {@link TaskAssembly} against an in-memory metastore and the
 * local FileSystem, with what a test reads back: the ids landed in table {@code sink.events}.
 */
final class CycleRig {

    final InMemoryMetastore metastore = new InMemoryMetastore();
    /** The tasks started, stopped by {@link #stopAll}. */
    final List<Task> started = new ArrayList<>();
    private final Path dir;

    CycleRig(Path dir) {
        this.dir = dir;
    }

    void stopAll() {
        started.forEach(Task::stop);
    }

    /** A started task of the connector, as Connect would start it, with {@code batch.max.records=2}. */
    Task start(int taskId, RecordingContext context) {
        return start(taskId, context, 2);
    }

    Task start(int taskId, RecordingContext context, int batchMaxRecords) {
        return start(taskId, context, batchMaxRecords, System::currentTimeMillis);
    }

    Task start(int taskId, RecordingContext context, int batchMaxRecords, LongSupplier clock) {
        return start(taskId, context, Map.of("batch.max.records", Integer.toString(batchMaxRecords)), clock);
    }

    Task start(int taskId, RecordingContext context, Map<String, String> overrides,
            LongSupplier clock) {
        Task task = new Task(settings -> metastore, clock);
        task.initialize(context);
        task.start(props(taskId, overrides));
        started.add(task);
        return task;
    }

    /** The task's properties, as Connect hands them over, with {@code overrides}. */
    Map<String, String> props(int taskId, Map<String, String> overrides) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "task-test");
        props.put("topics", BatchCycleTest.P0.topic());
        props.put("fs.url", dir.toUri().toString());
        props.put("warehouse.dir", dir.resolve("warehouse").toString());
        props.put("hive.metastore.uris", "thrift://metastore.invalid:9083");
        props.put("hive.database", "sink");
        props.put("writer.threads", "1");
        props.put("hive-sink.task.id", Integer.toString(taskId));
        // commits on the task's thread, so that a test sees each outcome in the call that closed the batch; the
        // pipelined tests below turn it back on
        props.put("batch.pipelined", "false");
        props.putAll(overrides);
        return props;
    }

    static List<SinkRecord> records(TopicPartition tp, long from, long to) {
        List<SinkRecord> records = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            records.add(new SinkRecord(tp.topic(), tp.partition(), null, null, BatchCycleTest.EVENT,
                    new Struct(BatchCycleTest.EVENT).put("id", offset), offset));
        }
        return records;
    }

    /**
     * Puts records as Connect's worker does: a {@link RetriableException} pauses the partitions and the same records
     * are handed over again, until they are taken.
     */
    static void putAsConnect(Task task, List<SinkRecord> records) throws InterruptedException {
        for (int attempt = 0; attempt < 200; attempt++) {
            try {
                task.put(records);
                return;
            } catch (RetriableException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError("put(" + records.size() + " records) kept failing with a retriable error");
    }

    void deleteWarehouse() throws IOException {
        deleteTree(dir.resolve("warehouse"));
    }

    /** Removes a directory and what is in it, if it is there. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** The first record of P0, then of P1: a batch of two that closes at once with a batch size of 2. */
    static List<SinkRecord> firstOfEach() {
        List<SinkRecord> both = new ArrayList<>(records(BatchCycleTest.P0, 0, 1));
        both.addAll(records(BatchCycleTest.P1, 0, 1));
        return both;
    }

    static OffsetAndMetadata at(long offset) {
        return new OffsetAndMetadata(offset);
    }

    /** The ids in every data file of the table, read with Avro's own reader. */
    List<Long> landedIds() throws IOException {
        Path table = dir.resolve("warehouse").resolve("sink.db").resolve("events");
        List<Long> ids = new ArrayList<>();
        if (!Files.isDirectory(table)) {
            return ids;
        }
        try (Stream<Path> files = Files.walk(table)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".avro")).toList()) {
                try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new File(file.toString()),
                        new GenericDatumReader<>())) {
                    reader.forEach(r -> ids.add((Long) r.get("id")));
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * A task as Connect drives it, its calls handed to the cycle as {@code HiveSinkTask} hands them (here as the
     * worker's user), built by {@link TaskAssembly} with another metastore and clock.
     */
    static final class Task {
        private final MetastoreFactory metastores;
        private final LongSupplier clock;
        private SinkTaskContext context;
        private TaskAssembly assembly;

        Task(MetastoreFactory metastores, LongSupplier clock) {
            this.metastores = metastores;
            this.clock = clock;
        }

        void initialize(SinkTaskContext taskContext) {
            this.context = taskContext;
        }

        void start(Map<String, String> props) {
            assembly = TaskAssembly.build(props, metastores, clock, context);
        }

        void open(Collection<TopicPartition> partitions) {
            if (context instanceof RecordingContext recording) {
                recording.consumerAssigned.addAll(partitions);
                recording.assigned.addAll(partitions);
            }
            if (!partitions.isEmpty()) {
                assembly.cycle().claim(partitions);
            }
        }

        /** Applies the seeks asked for since the last poll, as Connect's next poll does, then hands the records. */
        void put(Collection<SinkRecord> records) {
            if (context instanceof RecordingContext recording) {
                recording.rewindAsConnect();
            }
            assembly.cycle().take(records);
        }

        Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            return assembly.cycle().offsetsToCommit(offsets);
        }

        void close(Collection<TopicPartition> partitions) {
            assembly.cycle().close(partitions);
            if (context instanceof RecordingContext recording) {
                recording.consumerAssigned.removeAll(partitions);
                recording.assigned.removeAll(partitions);
            }
        }

        void stop() {
            if (assembly != null) {
                assembly.close();
            }
        }
    }

    /** What the task asks of Connect: its rewinds and the calls it asks for are recorded. */
    static final class RecordingContext implements SinkTaskContext {
        /** Where Connect's own context keeps the task's consumer, which the task reads its partitions' logs from. */
        org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer;
        final List<Map<TopicPartition, Long>> rewinds = new ArrayList<>();
        /** What Connect's consumer has assigned: the partitions the test opened and has not closed. */
        final Set<TopicPartition> consumerAssigned = new HashSet<>();
        /** Seeks asked for since Connect's last poll, which applies them first. */
        private final Map<TopicPartition, Long> pendingRewinds = new HashMap<>();
        final List<Long> timeouts = new ArrayList<>();
        final Set<TopicPartition> assigned = new HashSet<>();
        final List<Set<TopicPartition>> pauses = new ArrayList<>();
        final List<Set<TopicPartition>> resumes = new ArrayList<>();
        /** Paused now: paused and not resumed since. */
        final Set<TopicPartition> paused = new HashSet<>();

        /** Assigns partitions, as the consumer does before Connect opens them. */
        List<TopicPartition> assign(TopicPartition... partitions) {
            assigned.addAll(List.of(partitions));
            return List.of(partitions);
        }

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            rewinds.add(Map.copyOf(offsets));
            pendingRewinds.putAll(offsets);
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            offset(Map.of(tp, offset));
        }

        /**
         * Seeks the consumer as Connect's next poll does (WorkerSinkTask.rewind): a partition no longer assigned
         * throws there, as KafkaConsumer.seek does, and the task fails.
         */
        void rewindAsConnect() {
            for (TopicPartition tp : pendingRewinds.keySet()) {
                if (!consumerAssigned.contains(tp)) {
                    throw new IllegalStateException("No current assignment for partition " + tp + " (a seek the "
                            + "task asked for after the partition closed)");
                }
            }
            pendingRewinds.clear();
        }

        @Override
        public void timeout(long timeoutMs) {
            timeouts.add(timeoutMs);
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.copyOf(assigned);
        }

        @Override
        public void pause(TopicPartition... partitions) {
            pauses.add(Set.of(partitions));
            paused.addAll(List.of(partitions));
        }

        @Override
        public void resume(TopicPartition... partitions) {
            resumes.add(Set.of(partitions));
            List.of(partitions).forEach(paused::remove);
        }

        @Override
        public void requestCommit() {
        }
    }
}
