package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.hivesink.commit.TaskFencedException;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreUnreachableException;
import io.hivesink.task.CycleRig.RecordingContext;
import io.hivesink.task.CycleRig.Task;

/**
 * The batch cycle, as {@link TaskAssembly} builds it and Connect's calls drive it, against an in-memory metastore and
 * the local FileSystem: what it reports to Kafka, how it
 * retries a failed commit, how it stops when fenced, and what it rewinds when partitions close mid-batch. The same
 * lifecycle runs in real Connect workers in the integration tests.
 */
class BatchCycleTest {

    static final Schema EVENT = SchemaBuilder.struct().name("Event").field("id", Schema.INT64_SCHEMA).build();
    static final Schema PADDED = SchemaBuilder.struct().name("Event").field("id", Schema.INT64_SCHEMA)
            .field("pad", Schema.STRING_SCHEMA).build();
    static final TopicPartition P0 = new TopicPartition("events", 0);
    static final TopicPartition P1 = new TopicPartition("events", 1);

    @TempDir
    Path dir;
    private CycleRig rig;
    private InMemoryMetastore metastore;
    private List<Task> started;

    @BeforeEach
    void rig() {
        rig = new CycleRig(dir);
        metastore = rig.metastore;
        started = rig.started;
    }

    @AfterEach
    void stopTasks() {
        rig.stopAll();
    }

    /** A started task of the connector, as Connect would start it, with {@code batch.max.records=2}. */
    private Task start(int taskId, RecordingContext context) {
        return rig.start(taskId, context);
    }

    private Task start(int taskId, RecordingContext context, int batchMaxRecords) {
        return rig.start(taskId, context, batchMaxRecords);
    }

    private Task start(int taskId, RecordingContext context, int batchMaxRecords, LongSupplier clock) {
        return rig.start(taskId, context, batchMaxRecords, clock);
    }

    private Task start(int taskId, RecordingContext context, Map<String, String> overrides, LongSupplier clock) {
        return rig.start(taskId, context, overrides, clock);
    }

    private Map<String, String> props(int taskId, Map<String, String> overrides) {
        return rig.props(taskId, overrides);
    }

    private static List<SinkRecord> records(TopicPartition tp, long from, long to) {
        return CycleRig.records(tp, from, to);
    }

    private static void putAsConnect(Task task, List<SinkRecord> records) throws InterruptedException {
        CycleRig.putAsConnect(task, records);
    }

    private List<Long> landedIds() throws IOException {
        return rig.landedIds();
    }

    private void deleteWarehouse() throws IOException {
        rig.deleteWarehouse();
    }

    @Test
    void reportsToKafkaOnlyWhatIsCommittedInTheMetastoreAndAnOffsetCommitLeavesTheBatchOpen() throws IOException {
        Task task = start(0, new RecordingContext());
        task.open(List.of(P0));
        task.put(records(P0, 0, 3)); // two records make a batch; the third waits in the next
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), task.preCommit(Map.of(P0, new OffsetAndMetadata(3))),
                "the offset commit reports what is committed and leaves the open batch alone");
        assertEquals(List.of(0L, 1L), landedIds());
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L), landedIds(), "closing the partition commits the open batch");
    }

    @Test
    void aBatchCommittedAsItsPartitionClosedReachesKafkaThroughTheNextOwnerWithoutASeek() throws IOException {
        RecordingContext first = new RecordingContext();
        Task a = start(0, first, 10);
        a.open(List.of(P0));
        a.put(records(P0, 0, 3));
        assertEquals(Map.of(), a.preCommit(Map.of(P0, new OffsetAndMetadata(3))), "nothing committed yet");
        a.close(List.of(P0)); // Connect asked for offsets before the close: Kafka's group offset stays at 0
        assertEquals(List.of(0L, 1L, 2L), landedIds());

        RecordingContext second = new RecordingContext();
        Task b = start(1, second, 10);
        b.open(List.of(P0));
        assertEquals(List.of(), second.rewinds, "no seek: Connect would take 3 for Kafka's offset and never send it");
        assertEquals(Map.of(P0, new OffsetAndMetadata(0)), b.preCommit(Map.of(P0, new OffsetAndMetadata(0))),
                "an offset is reported only once the consumer has passed it");
        b.put(records(P0, 0, 5)); // the consumer starts at Kafka's offset: 0 to 2 are skipped, 3 and 4 taken
        assertEquals(Map.of(P0, new OffsetAndMetadata(3)), b.preCommit(Map.of(P0, new OffsetAndMetadata(5))),
                "Kafka's group offset catches up with the batch committed at the close");
        b.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), landedIds(), "once each");
        assertEquals(List.of(), second.rewinds);
    }

    @Test
    void aConsumerThatStartsAheadOfTheCommittedOffsetIsSoughtBack() throws IOException {
        Task a = start(0, new RecordingContext(), 3);
        a.open(List.of(P0, P1));
        a.put(records(P0, 0, 3));
        a.put(records(P1, 0, 3));
        a.close(List.of(P0, P1));

        RecordingContext context = new RecordingContext();
        Task b = start(1, context, 3);
        b.open(context.assign(P0, P1));
        b.put(records(P0, 5, 7)); // Kafka's offset of P0 is ahead of the metastore's (moved by hand, say)
        assertEquals(List.of(Map.of(P0, 3L)), context.rewinds, "read again from the metastore's offset");
        b.put(records(P0, 3, 6));
        assertEquals(Map.of(P0, new OffsetAndMetadata(6)), b.preCommit(Map.of(P0, new OffsetAndMetadata(6))));

        assertEquals(Map.of(P1, new OffsetAndMetadata(3)), b.preCommit(Map.of(P1, new OffsetAndMetadata(9))),
                "no record of P1 came yet, but Connect's position is ahead too");
        assertEquals(1, context.rewinds.size(), "the seek waits for the next delivery (P1 may be closing)");
        b.put(List.of());
        assertEquals(Map.of(P1, 3L), context.rewinds.get(1));
        b.put(records(P1, 3, 6));
        b.close(List.of(P0, P1));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 2L, 3L, 3L, 4L, 4L, 5L, 5L), landedIds(), "once each");
    }

    @Test
    void aConsumerFarBehindTheCommittedOffsetIsSoughtForwardAndOneClosingIsNotSought() throws IOException {
        Task a = start(0, new RecordingContext(), 2);
        a.open(List.of(P0, P1));
        a.put(records(P0, 0, 6));
        a.put(records(P1, 0, 6));
        a.close(List.of(P0, P1));

        RecordingContext context = new RecordingContext();
        Task b = start(1, context, 2);
        b.open(context.assign(P0, P1));
        b.put(records(P0, 0, 2)); // Kafka's offsets expired: the consumer starts over, 6 behind, a batch is 2
        assertEquals(List.of(Map.of(P0, 5L)), context.rewinds, "to the record before the committed offset");

        b.preCommit(Map.of(P1, new OffsetAndMetadata(8))); // ahead, found at the offset commit before P1 closes
        b.close(List.of(P1));
        b.put(List.of());
        assertEquals(1, context.rewinds.size(), "a partition no longer assigned is not sought (it would fail)");
    }

    @Test
    void aBatchWhoseIntentLandedThoughItsAnswerWasLostIsFinishedNotStagedAgain() throws IOException {
        Task task = start(0, new RecordingContext(), 2);
        task.open(List.of(P0));
        metastore.loseAnswerOfNextConditionalWrite = true; // the intent's write
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        int before = metastore.conditionalWrites;
        task.put(records(P0, 0, 2)); // Connect hands them again; the held batch is tried again
        assertEquals(1, metastore.conditionalWrites - before, "only the state's completion: the durable intent is "
                + "found and its batch finished, not staged and recorded again (on S3 that aborts its uploads)");
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L), landedIds());
    }

    @Test
    void anIdlePartitionSoughtForwardStillHasItsCommittedOffsetReachKafka() throws IOException {
        Task a = start(0, new RecordingContext(), 2);
        a.open(List.of(P0));
        a.put(records(P0, 0, 6));
        a.close(List.of(P0)); // landed to 6 in the metastore; Kafka was never told (the worker died)

        RecordingContext context = new RecordingContext();
        ConnectOffsets connect = new ConnectOffsets(context);
        Task b = start(1, context, 2);
        b.open(context.assign(P0));
        connect.assigned(P0, 0);
        connect.deliver(b, records(P0, 0, 2)); // the group's offset: 6 behind, a batch is 2, so sought forward
        connect.deliver(b, records(P0, 5, 6)); // from where it was sought to; nothing comes after
        connect.commit(b);
        assertEquals(Map.of(P0, 6L), connect.kafka, "Kafka's group offset reaches the metastore's on an idle "
                + "partition");
        b.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), landedIds(), "the record read through is not landed again");
    }

    /**
     * Connect's bookkeeping of a sink task's offsets (WorkerSinkTask): a seek counts as committed, a delivered record
     * moves the position, and an offset commit that changes nothing is skipped.
     */
    private static final class ConnectOffsets {
        private final RecordingContext context;
        private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();
        private final Map<TopicPartition, Long> current = new HashMap<>();
        /** The group's committed offsets, as Kafka holds them. */
        final Map<TopicPartition, Long> kafka = new HashMap<>();
        private int rewindsApplied;

        ConnectOffsets(RecordingContext context) {
            this.context = context;
        }

        void assigned(TopicPartition tp, long position) {
            lastCommitted.put(tp, position);
            current.put(tp, position);
        }

        /** Hands the records to the task, then applies its seeks, as the next poll does. */
        void deliver(Task task, List<SinkRecord> records) {
            task.put(records);
            records.forEach(r -> current.put(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset() + 1));
            for (; rewindsApplied < context.rewinds.size(); rewindsApplied++) {
                lastCommitted.putAll(context.rewinds.get(rewindsApplied));
                current.putAll(context.rewinds.get(rewindsApplied));
            }
        }

        void commit(Task task) {
            Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
            current.forEach((tp, offset) -> positions.put(tp, new OffsetAndMetadata(offset)));
            Map<TopicPartition, Long> committable = new HashMap<>(lastCommitted);
            task.preCommit(positions).forEach((tp, offset) -> committable.put(tp, offset.offset()));
            if (!committable.equals(lastCommitted)) {
                kafka.putAll(committable);
                lastCommitted.putAll(committable);
            }
        }
    }

    /** Records of about a kilobyte each, encoded. */
    private static List<SinkRecord> kilobyteRecords(TopicPartition tp, long from, long to) {
        String pad = "x".repeat(1_000);
        List<SinkRecord> records = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            records.add(new SinkRecord(tp.topic(), tp.partition(), null, null, PADDED,
                    new Struct(PADDED).put("id", offset).put("pad", pad), offset));
        }
        return records;
    }

    /** Calls the task as Connect does when no records come, until {@code done} holds (the encoder runs apart). */
    private static void putNothingUntil(Task task, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "gave up waiting");
            Thread.sleep(5);
            task.put(List.of());
        }
    }

    /**
     * A budget of 10,000 bytes, batches held as encoded bytes so that the figures add up by the record (compressed
     * early, a batch of a few records holds its first pages: BatchBufferTest and MemoryBudgetIT).
     */
    private static final Map<String, String> SMALL_BUDGET = Map.of("batch.max.records", "1000000",
            "memory.budget.bytes", "10000", "avro.compress.early", "false");

    /** Task 0 holding 8 kB of {@link #SMALL_BUDGET} on P0. */
    private Task fillTheBudget(RecordingContext context) throws Exception {
        Task a = start(0, context, SMALL_BUDGET, System::currentTimeMillis);
        a.open(context.assign(P0));
        a.put(kilobyteRecords(P0, 0, 8));
        putNothingUntil(a, () -> MemoryBudget.ofWorker().used() > 8_000);
        return a;
    }

    @Test
    void whenTheWorkersMemoryBudgetIsFullTheLargestHolderCommitsAndTheOthersHoldBack() throws Exception {
        MemoryBudget budget = MemoryBudget.ofWorker();
        RecordingContext contextA = new RecordingContext();
        Task a = fillTheBudget(contextA);

        RecordingContext contextB = new RecordingContext();
        Task b = start(1, contextB, SMALL_BUDGET, System::currentTimeMillis);
        b.open(contextB.assign(P1));
        b.put(kilobyteRecords(P1, 0, 3));
        putNothingUntil(b, () -> !contextB.pauses.isEmpty());
        assertEquals(List.of(Set.of(P1)), contextB.pauses, "B holds less than the average: it holds back");
        assertEquals(250L, contextB.timeouts.get(contextB.timeouts.size() - 1),
                "and asks to be called again soon to look");
        assertEquals(List.of(), landedIds(), "nothing committed yet: A was not called since");

        a.put(List.of());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), landedIds(), "A holds the most: it commits early");
        b.put(List.of());
        assertEquals(List.of(Set.of(P1)), contextB.resumes, "the budget has room again: B takes records again");
        assertTrue(contextA.pauses.isEmpty(), "A was never held back");

        b.put(kilobyteRecords(P1, 3, 4));
        b.close(List.of(P1));
        assertEquals(Map.of(), b.preCommit(Map.of()));
        assertEquals(12, landedIds().size(), "every record once");
        a.stop();
        b.stop();
        started.clear();
        assertEquals(0, budget.used(), "stopped tasks hold nothing");
    }

    /** What a test does before a metastore call, by the call's name: it may wait, or throw. */
    private interface BeforeCall {
        void run(String method) throws Exception;
    }

    /** The test's metastore, with {@code before} run ahead of each call. */
    private Metastore metastoreWith(BeforeCall before) {
        return (Metastore) Proxy.newProxyInstance(Metastore.class.getClassLoader(), new Class<?>[] {Metastore.class},
                (proxy, method, args) -> {
                    before.run(method.getName());
                    try {
                        return method.invoke(metastore, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * While a closed batch's files are written, it counts, besides itself, what its files' writer holds (a columnar
     * row group or stripes, Avro blocks in flight); held after its commit failed, only itself; committed, nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"avro", "parquet", "orc"})
    void aBatchCountsWhatWritingItsFilesTakesWhileTheyAreWritten(String format) throws Exception {
        AtomicBoolean down = new AtomicBoolean();
        AtomicLong usedWhileWriting = new AtomicLong();
        Metastore flaky = metastoreWith(method -> {
            if (down.get() && method.equals("alterTableIf")) { // the intent: files are staged
                usedWhileWriting.set(MemoryBudget.ofWorker().used());
                throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (down)", null);
            }
        });
        RecordingContext context = new RecordingContext();
        Task task = new Task(settings -> flaky, System::currentTimeMillis);
        task.initialize(context);
        Map<String, String> overrides = new HashMap<>(SMALL_BUDGET);
        overrides.put("memory.budget.bytes", "100000");
        overrides.put("batch.max.records", "6");
        overrides.put("format", format);
        task.start(props(0, overrides));
        started.add(task);
        task.open(context.assign(P0));
        down.set(true);
        assertThrows(RetriableException.class, () -> task.put(kilobyteRecords(P0, 0, 6)));
        long held = MemoryBudget.ofWorker().used();
        assertTrue(held > 6_000 && held < 6_500, "held after the failed commit: the 6 kB batch only, " + held);
        long writing = usedWhileWriting.get() - held;
        // Avro: the blocks in flight, up to the batch; Parquet: the batch (its row group); ORC: 7/4 of it (stripes)
        long expected = switch (format) {
            case "orc" -> 10_500;
            default -> 6_000;
        };
        assertTrue(writing > expected - 350 && writing < expected + 350,
                "counted while the files were written, beyond the batch: " + writing);
        down.set(false);
        task.put(List.of());
        try (Stream<Path> files = Files.walk(dir.resolve("warehouse").resolve("sink.db").resolve("events"))) {
            assertEquals(1, files.filter(f -> f.getFileName().toString().endsWith("." + format)).count(),
                    "committed once the metastore is back");
        }
        assertEquals(0, MemoryBudget.ofWorker().used(), "and let go");
    }

    /**
     * The budget full while the batch in flight is written: the open batch, empty, is not closed, since closing it
     * gives nothing back; it would only stall the task until the commit in flight ends and then commit no records.
     */
    @Test
    void aFullBudgetWhileABatchIsInFlightClosesNoEmptyBatch() throws Exception {
        java.util.concurrent.CountDownLatch atIntent = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(); // once the task has started and claimed its partition
        Metastore slow = metastoreWith(method -> {
            if (armed.get() && method.equals("alterTableIf") && goOn.getCount() > 0) { // the intent
                atIntent.countDown();
                goOn.await();
            }
        });
        RecordingContext context = new RecordingContext();
        Task task = new Task(settings -> slow, System::currentTimeMillis);
        task.initialize(context);
        Map<String, String> overrides = new HashMap<>(SMALL_BUDGET);
        overrides.put("batch.max.records", "8");
        overrides.put("batch.pipelined", "true");
        task.start(props(0, overrides));
        started.add(task);
        task.open(context.assign(P0));
        armed.set(true);
        java.util.concurrent.ExecutorService connect = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            // the batch closes and is committed on the lane, held at its intent; with nothing else to close, put
            // returns without waiting for the lane, now and at the next call
            connect.submit(() -> {
                task.put(kilobyteRecords(P0, 0, 8));
                return null;
            }).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(atIntent.await(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(MemoryBudget.ofWorker().used() > 10_000, "the batch in flight fills the budget: "
                    + MemoryBudget.ofWorker().used());
            connect.submit(() -> {
                task.put(List.of());
                return null;
            }).get(5, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            goOn.countDown();
            connect.shutdown();
        }
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), landedIds().stream().sorted().toList());
        assertEquals(1, metastore.partitionNames("sink", "hive_sink_ledger").size(), "one batch, no empty one");
    }

    @Test
    void aTaskThatCannotCommitNeitherKeepsTheMemoryBudgetFromOthersNorHoldsItForGood() throws Exception {
        AtomicBoolean aDown = new AtomicBoolean(); // task A's metastore goes away once it has claimed P0
        Metastore flakyA = metastoreWith(method -> {
            if (aDown.get() && method.equals("alterTableIf")) { // its batch's intent
                throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (down)", null);
            }
        });
        AtomicLong nowA = new AtomicLong(System.currentTimeMillis());
        RecordingContext contextA = new RecordingContext();
        Task a = new Task(settings -> flakyA, nowA::get);
        a.initialize(contextA);
        a.start(props(0, SMALL_BUDGET));
        started.add(a);
        a.open(contextA.assign(P0));
        aDown.set(true);
        // A fills the budget, closes its batch to give memory back, and its commit fails: the batch is held
        List<SinkRecord> delivery = kilobyteRecords(P0, 0, 11);
        long deadline = System.nanoTime() + 10_000_000_000L;
        boolean commitFailed = false;
        while (!commitFailed) {
            assertTrue(System.nanoTime() < deadline, "A's commit never failed");
            try {
                a.put(delivery);
                delivery = List.of();
                Thread.sleep(5);
            } catch (RetriableException e) {
                commitFailed = true;
            }
        }
        assertTrue(MemoryBudget.ofWorker().used() > 10_000, "A alone holds the budget full");

        RecordingContext contextB = new RecordingContext();
        Task b = start(1, contextB, SMALL_BUDGET, System::currentTimeMillis);
        b.open(contextB.assign(P1));
        b.put(kilobyteRecords(P1, 0, 3));
        putNothingUntil(b, () -> !contextB.pauses.isEmpty());
        assertEquals(List.of(0L, 1L, 2L), landedIds(), "B, which can commit, gave its memory back; A cannot");
        assertEquals(List.of(Set.of(P1)), contextB.pauses, "and holds back: A's held batch fills the budget");

        nowA.addAndGet(31_000);
        assertThrows(RetriableException.class, () -> a.put(List.of())); // A's commit fails again
        assertEquals(Map.of(P0, 0L), contextA.rewinds.get(contextA.rewinds.size() - 1),
                "after 30 s of a full budget A drops its batches, to read them again");
        b.put(List.of());
        assertEquals(List.of(Set.of(P1)), contextB.resumes, "the budget has room again: B takes records again");

        aDown.set(false);
        a.put(kilobyteRecords(P0, 0, 4)); // read again from the committed offset
        a.close(List.of(P0));
        b.put(kilobyteRecords(P1, 3, 4));
        b.close(List.of(P1));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 2L, 3L, 3L), landedIds(), "every record once");
        a.stop();
        b.stop();
        started.clear();
    }

    @Test
    void withErrorsToleranceAllAndNoDeadLetterQueueABadRecordIsSkippedAndTheOthersLand() throws IOException {
        RecordingContext context = new RecordingContext(); // Connect hands no reporter without a DLQ or error log
        Task task = start(0, context, Map.of("batch.max.records", "3", "errors.tolerance", "all"),
                System::currentTimeMillis);
        task.open(List.of(P0));
        List<SinkRecord> records = new ArrayList<>(records(P0, 0, 1));
        records.add(new SinkRecord(P0.topic(), P0.partition(), null, null, null, null, 1)); // a tombstone
        records.addAll(records(P0, 2, 3));
        task.put(records);
        assertEquals(List.of(0L, 2L), landedIds());
        assertEquals(Map.of(P0, new OffsetAndMetadata(3)), task.preCommit(Map.of(P0, new OffsetAndMetadata(3))),
                "the skipped record is behind the committed offset: it is not read again");

        Task strict = start(1, new RecordingContext(), Map.of(), System::currentTimeMillis);
        strict.open(List.of(P1));
        assertThrows(org.apache.kafka.connect.errors.DataException.class, () -> {
            strict.put(List.of(new SinkRecord(P1.topic(), P1.partition(), null, null, null, null, 0)));
            putNothingUntil(strict, () -> false); // the encoder finds it; the next call reports it
        }, "errors.tolerance=none (the default) fails the task");
        Task closing = start(2, new RecordingContext(), Map.of(), System::currentTimeMillis);
        closing.open(List.of(P1));
        closing.put(List.of(new SinkRecord(P1.topic(), P1.partition(), null, null, null, null, 0)));
        assertThrows(org.apache.kafka.connect.errors.DataException.class, () -> closing.close(List.of(P1)),
                "also when its partition closes first");
    }

    @Test
    void tombstonesAreSkippedWithBehaviorOnNullValuesIgnoreAndTheirOffsetsCommitted() throws IOException {
        Task task = start(0, new RecordingContext(),
                Map.of("batch.max.records", "3", "behavior.on.null.values", "ignore"), System::currentTimeMillis);
        task.open(List.of(P0));
        List<SinkRecord> records = new ArrayList<>(records(P0, 0, 1));
        records.add(new SinkRecord(P0.topic(), P0.partition(), null, null, null, null, 1));
        records.addAll(records(P0, 2, 3));
        records.add(new SinkRecord(P0.topic(), P0.partition(), null, null, null, null, 3));
        records.add(new SinkRecord(P0.topic(), P0.partition(), null, null, null, null, 4));
        records.add(new SinkRecord(P0.topic(), P0.partition(), null, null, null, null, 5));
        task.put(records); // two batches of three: [0, null, 2] and three tombstones alone
        assertEquals(List.of(0L, 2L), landedIds());
        assertEquals(Map.of(P0, new OffsetAndMetadata(6)), task.preCommit(Map.of(P0, new OffsetAndMetadata(6))),
                "a batch of tombstones only still moves the offsets past them");
    }

    @Test
    void partitionsAssignedWhileTheMetastoreIsDownWaitPausedAndAreClaimedWhenItIsBack() throws IOException {
        AtomicBoolean down = new AtomicBoolean();
        Metastore flaky = metastoreWith(method -> {
            if (down.get() && !method.equals("close")) {
                throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (down)", null);
            }
        });
        AtomicLong now = new AtomicLong(1_000_000);
        RecordingContext context = new RecordingContext();
        Task task = new Task(settings -> flaky, now::get);
        task.initialize(context);
        task.start(props(0, Map.of("batch.max.records", "2", "hive.metastore.start.wait.ms", "60000")));
        started.add(task);
        task.open(context.assign(P0));
        task.put(records(P0, 0, 3));
        task.close(List.of(P0)); // a rebalance: the open batch [2] is committed while the task owns P0

        down.set(true); // the metastore goes away; P0 comes back in the same rebalance
        task.open(List.of(P0));
        assertEquals(List.of(Set.of(P0)), context.pauses, "P0 waits, paused, instead of failing the task");
        task.put(records(P0, 3, 5)); // fetched before the pause took effect: not taken
        assertEquals(1_000L, context.timeouts.get(context.timeouts.size() - 1), "Connect calls again in a second");

        down.set(false);
        now.addAndGet(1_000);
        task.put(List.of()); // the next try: claimed, and resumed
        assertEquals(List.of(Set.of(P0)), context.resumes);
        assertTrue(context.rewinds.isEmpty(), "not sought yet (Connect would take it for Kafka's offset)");
        task.put(records(P0, 5, 6)); // the consumer went on past 3 and 4, which were not taken
        assertEquals(List.of(Map.of(P0, 3L)), context.rewinds, "read again from the committed offset");
        task.put(records(P0, 3, 6));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), landedIds(), "once each");

        down.set(true); // and an outage that outlasts hive.metastore.start.wait.ms fails the task, naming the key
        task.open(List.of(P0, P1));
        now.addAndGet(61_000);
        ConnectException failed = assertThrows(ConnectException.class, () -> task.put(List.of()));
        assertTrue(failed.getMessage().contains("hive.metastore.start.wait.ms"), failed.getMessage());
        down.set(false);
    }

    @Test
    void theTaskIsCalledAgainBeforeTheIntervalIsUpAndAQuietBatchClosesOnTime() throws IOException {
        RecordingContext context = new RecordingContext();
        AtomicLong now = new AtomicLong(1_000_000);
        Task task = start(0, context, 10, now::get);
        task.open(List.of(P0));
        task.put(records(P0, 0, 1));
        assertEquals(List.of(1_000L), context.timeouts,
                "Connect is asked to call again within a second while the task holds a batch (to look at the memory "
                        + "budget), and before the interval ends");
        now.addAndGet(299_000);
        task.put(List.of());
        assertEquals(1_000L, context.timeouts.get(context.timeouts.size() - 1));
        assertEquals(List.of(), landedIds());
        now.addAndGet(1_000);
        task.put(List.of()); // no records came: the interval still closes the batch
        assertEquals(List.of(0L), landedIds());
        assertEquals(2, context.timeouts.size(), "no open batch, no call asked for");
    }

    @Test
    void theTaskIsCalledAgainWhenTheIdleTimeIsUpAndABatchNoRecordCameToClosesThen() throws IOException {
        RecordingContext context = new RecordingContext();
        AtomicLong now = new AtomicLong(1_000_000);
        Task task = start(0, context, Map.of("batch.max.records", "10", "batch.max.idle.ms", "300"), now::get);
        task.open(List.of(P0));
        task.put(records(P0, 0, 1));
        assertEquals(List.of(300L), context.timeouts, "Connect is asked to call again when the idle time is up");
        now.addAndGet(200);
        task.put(records(P0, 1, 2));
        assertEquals(300L, context.timeouts.get(context.timeouts.size() - 1), "a record restarts the idle time");
        now.addAndGet(299);
        task.put(List.of());
        assertEquals(List.of(), landedIds(), "299 ms since the latest record");
        now.addAndGet(1);
        task.put(List.of()); // no record came for the idle time
        assertEquals(List.of(0L, 1L), landedIds());
    }

    @Test
    void aBatchIdleBecauseTheMemoryBudgetPausedItsPartitionsIsCountedAsTheBudgetsClose() throws Exception {
        fillTheBudget(new RecordingContext());

        RecordingContext contextB = new RecordingContext();
        AtomicLong nowB = new AtomicLong(1_000_000);
        Map<String, String> idle = new HashMap<>(SMALL_BUDGET);
        idle.put("batch.max.idle.ms", "100");
        Task b = start(1, contextB, idle, nowB::get);
        b.open(contextB.assign(P1));
        b.put(kilobyteRecords(P1, 0, 3));
        putNothingUntil(b, () -> !contextB.pauses.isEmpty());
        assertEquals(List.of(), landedIds(), "B holds back, paused: no record comes to its batch");

        nowB.addAndGet(100);
        b.put(List.of());
        assertEquals(List.of(0L, 1L, 2L), landedIds(), "B's batch closed on its idle time");
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        javax.management.ObjectName taskB = new javax.management.ObjectName(
                "kafka.connect:type=plugins,connector=task-test,task=1");
        assertEquals(1.0, ((Number) server.getAttribute(taskB, "batches-closed-by-memory-total")).doubleValue(),
                "counted as the memory budget's close, which paused the partitions");
        assertEquals(0.0, ((Number) server.getAttribute(taskB, "batches-closed-by-idle-total")).doubleValue());
    }

    @Test
    void aBatchWhoseCommitFailedIsCommittedBeforeAnythingElseAndLandsOnce() throws IOException {
        Task task = start(0, new RecordingContext());
        task.open(List.of(P0));
        metastore.failNextAddPartitions = true;
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        task.put(records(P0, 0, 2)); // Connect hands the same records again after a retriable error
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), task.preCommit(Map.of(P0, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 1L), landedIds());
    }

    @Test
    void recordsOfABatchWhoseTableTheMetastoreFailedToAdmitAtCloseAreNotLost() throws Exception {
        Task task = start(0, new RecordingContext());
        task.open(List.of(P0)); // never committed
        metastore.failingTableLookUps.put("events", 1); // admitting the table fails once, on the encoding pool
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        putAsConnect(task, records(P0, 0, 2)); // Connect hands the same records again
        putAsConnect(task, records(P0, 2, 4));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L), landedIds(), "once each, none lost");
    }

    @Test
    void aTableAdmissionThatFailsWhileTheBatchIsOpenIsTriedAgainAndTheTaskRidesTheOutage() throws Exception {
        for (String pipelined : List.of("false", "true")) {
            metastore.tables.clear();
            metastore.partitions.clear();
            deleteWarehouse();
            Task task = start(0, new RecordingContext(), Map.of("batch.max.records", "10",
                    "batch.pipelined", pipelined, "name", "admission-" + pipelined), System::currentTimeMillis);
            task.open(List.of(P0));
            metastore.failingTableLookUps.put("events", 3);
            putAsConnect(task, records(P0, 0, 3)); // encoded in the background: the failure surfaces at a later call
            putAsConnect(task, records(P0, 3, 6));
            putAsConnect(task, records(P0, 6, 12)); // the batch of 10 closes
            task.close(List.of(P0));
            assertEquals(LongStream.range(0, 12).boxed().toList(), landedIds(), "pipelined=" + pipelined);
            assertEquals(0, metastore.failingTableLookUps.get("events"), "every failure was met");
            task.stop();
        }
    }

    @Test
    void fencingFoundAtConnectsOffsetCommitStopsTheTaskForGood() throws IOException {
        Task zombie = start(0, new RecordingContext());
        zombie.open(List.of(P0, P1)); // neither committed yet
        metastore.failNextConditionalWrite = true;
        List<SinkRecord> both = new ArrayList<>(records(P0, 0, 1));
        both.addAll(records(P1, 0, 1));
        assertThrows(RetriableException.class, () -> zombie.put(both)); // the batch [P0 0, P1 0] is held
        Task owner = start(0, new RecordingContext()); // a newer instance of task 0: the first is a zombie now
        owner.open(List.of(P0));

        assertEquals(Map.of(), zombie.preCommit(Map.of(P0, new OffsetAndMetadata(1), P1, new OffsetAndMetadata(1))),
                "the held batch meets the fence at Connect's offset commit: nothing is reported");
        ConnectException stopped = assertThrows(ConnectException.class, () -> zombie.put(records(P1, 1, 3)));
        assertTrue(!(stopped instanceof RetriableException) && stopped.getMessage().contains("fenced"),
                "Connect keeps a task running after a failed offset commit; its next put fails it: " + stopped);
        zombie.close(List.of(P0, P1));
        owner.put(records(P0, 0, 2));
        assertEquals(List.of(0L, 1L), landedIds(), "P0's records from its new owner; nothing of P1 past a gap");
    }

    @Test
    void recordsConnectHandsAgainAfterASeekAreStaleAndNotTakenAheadOfTheOnesBelowIt() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context, 4);
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 4)); // committed: 4
        task.put(records(P0, 4, 6)); // open
        metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> task.put(records(P0, 6, 8))); // [4, 8) closes, is held
        metastore.failNextConditionalWrite = true;
        task.close(List.of(P1)); // a cooperative rebalance takes P1; the held batch fails again and is dropped
        task.put(records(P0, 6, 8)); // Connect hands the refused records again, fetched before the seek: stale
        assertEquals(List.of(Map.of(P0, 4L)), context.rewinds, "P0 is read again from its committed offset, sought "
                + "at the delivery after the close (P0 could have closed too)");
        task.put(records(P0, 4, 8)); // then the consumer reads from the seek
        task.close(List.of(P0));
        assertEquals(LongStream.range(0, 8).boxed().toList(), landedIds(), "once each, none skipped");
    }

    @Test
    void recordsOfAPollFetchedBeforeASeekMadeAsPartitionsWereRevokedAreNotTakenAheadOfTheOnesBelowIt()
            throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context, 10);
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 4));
        task.put(records(P1, 0, 1));
        metastore.failNextConditionalWrite = true;
        task.close(List.of(P1)); // a rebalance that only revokes P1: the commit fails, P0 is read again from 0
        task.put(records(P0, 4, 6)); // the same poll's records, fetched before the seek took effect
        assertEquals(List.of(Map.of(P0, 0L)), context.rewinds, "sought at the delivery after the close");
        assertEquals(Map.of(P0, 0L), context.rewinds.get(context.rewinds.size() - 1), "sought there once more");
        task.put(records(P0, 0, 6));
        task.close(List.of(P0));
        assertEquals(LongStream.range(0, 6).boxed().toList(), landedIds(), "once each, none skipped");
    }

    @Test
    void aHeldBatchDroppedAfterItsIntentWasDurableIsRolledForwardBeforeTheNextAndLandsOnce() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context);
        task.open(List.of(P0, P1));
        metastore.failNextAddPartitions = true; // the intent is durable and the files moved; the batch not marked
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        metastore.failNextAddPartitions = true;
        task.close(List.of(P1)); // P1 is revoked; the held batch fails again and is dropped; P0 stays
        task.put(List.of()); // the seek waits for the next delivery (P0 could close first)
        assertEquals(Map.of(P0, 0L), context.rewinds.get(context.rewinds.size() - 1));
        task.put(records(P0, 0, 2)); // read again: its commit finds the dropped batch's intent and rolls it forward
        task.put(records(P0, 0, 4)); // read again from where that batch ended
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L), landedIds(), "once each");
        assertEquals(Map.of(), task.preCommit(Map.of()));
    }

    @Test
    void aDroppedBatchThatAnotherTaskRolledForwardDoesNotStopTheTask() throws IOException {
        Task task = start(0, new RecordingContext());
        task.open(List.of(P0, P1));
        metastore.failNextAddPartitions = true; // the intent of [P0 0, P1 0] is durable; the batch is not marked
        List<SinkRecord> both = new ArrayList<>(records(P0, 0, 1));
        both.addAll(records(P1, 0, 1));
        assertThrows(RetriableException.class, () -> task.put(both));
        metastore.failNextAddPartitions = true;
        task.close(List.of(P1)); // the held batch fails again and is dropped; P0 stays
        task.put(List.of()); // P0's seek waits for the next delivery (P0 could close first)
        Task other = start(1, new RecordingContext());
        other.open(List.of(P1)); // its claim rolls the dropped batch forward and removes its staging
        task.put(records(P0, 0, 2)); // the cached intent is gone: read again, and this batch refused as out of order
        task.put(records(P0, 0, 3));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 0L, 1L, 2L), landedIds(), "P0 0 to 2 and P1 0, once each");
    }

    @Test
    void aTaskFencedAtConnectsOffsetCommitClaimsNothing() {
        Task zombie = start(0, new RecordingContext());
        zombie.open(List.of(P0));
        metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> zombie.put(records(P0, 0, 2)));
        Task owner = start(0, new RecordingContext()); // a newer instance of task 0
        owner.open(List.of(P0));
        assertEquals(Map.of(), zombie.preCommit(Map.of(P0, new OffsetAndMetadata(2))));
        zombie.close(List.of(P0));
        assertThrows(TaskFencedException.class, () -> zombie.open(List.of(P1)),
                "a claim would write the task's state as its owner");
    }

    @Test
    void aCommittedOffsetPastTheEndOfItsLogFailsTheClaimUnlessTheLogIsToBeReadFromItsStart() throws Exception {
        Task first = start(0, new RecordingContext());
        first.open(List.of(P0));
        first.put(records(P0, 0, 4));
        first.close(List.of(P0)); // committed: 4
        first.stop();

        // the topic is deleted and created again: its log holds offsets 0 and 1
        RecordingContext recreated = new RecordingContext();
        org.apache.kafka.clients.consumer.MockConsumer<byte[], byte[]> consumer =
                new org.apache.kafka.clients.consumer.MockConsumer<>(
                        org.apache.kafka.clients.consumer.OffsetResetStrategy.EARLIEST);
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 2L));
        recreated.consumer = consumer;
        Task failing = start(0, recreated);
        ConnectException e = assertThrows(ConnectException.class, () -> failing.open(List.of(P0)));
        assertTrue(e.getMessage().contains("events-0: offset 4 is committed in the metastore, but its log holds "
                + "offsets 0 to 1") && e.getMessage().contains("offsets.ahead.policy=log-start"), e.getMessage());
        failing.stop();

        Task resuming = start(1, recreated, Map.of("batch.max.records", "2", "offsets.ahead.policy",
                "log-start"), System::currentTimeMillis);
        resuming.open(List.of(P0)); // task 1 takes P0 over: task 0's state keeps offset 4, released
        resuming.put(records(P0, 0, 2)); // the new log's records
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), resuming.preCommit(Map.of(P0, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 3L), landedIds(), "the old log's records and the new log's");
        resuming.close(List.of(P0));

        // the next claim resumes from the highest offset any state holds: task 0's 4 was moved too
        Task next = start(0, recreated);
        next.open(List.of(P0));
        next.put(records(P0, 0, 2));
        next.close(List.of(P0));
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 3L), landedIds(), "nothing of the new log twice");
        javax.management.ObjectName taskMetrics = new javax.management.ObjectName(
                "kafka.connect:type=plugins,connector=task-test,task=1");
        assertEquals(1.0, ((Number) java.lang.management.ManagementFactory.getPlatformMBeanServer()
                .getAttribute(taskMetrics, "offsets-ahead-of-log-total")).doubleValue());
    }

    @Test
    void aMetastoreRefusalThatRetryingDoesNotCureFailsTheTaskWithItsWordsAfterTheOutageWait() {
        AtomicLong now = new AtomicLong(1_000_000);
        Task task = start(0, new RecordingContext(), Map.of("batch.max.records", "2",
                "hive.metastore.start.wait.ms", "60000"), now::get);
        task.open(List.of(P0));
        metastore.refuseAddPartitions = "MetaException(message:Duplicate entry 'x' for key 'UNIQUEPARTITION')";
        ConnectException stopped = null;
        int tries = 0;
        while (stopped == null && tries < 20) {
            tries++;
            try {
                task.put(records(P0, 0, 2));
            } catch (RetriableException e) {
                now.addAndGet(15_000); // Connect hands the records again
            } catch (ConnectException e) {
                stopped = e;
            }
        }
        assertTrue(stopped != null && stopped.getMessage().contains("Duplicate entry 'x' for key 'UNIQUEPARTITION'"),
                "the task fails with the metastore's words instead of retrying for ever: " + stopped);
        assertTrue(tries >= 5 && tries <= 6, "after the outage wait (60 s here) of refusals: " + tries + " tries");
        assertEquals(Map.of(), task.preCommit(Map.of(P0, new OffsetAndMetadata(2))), "and commits nothing more");
        metastore.refuseAddPartitions = null;
    }

    @Test
    void pipelinedBatchesCommitInOrderWhileTheNextFillsAndClosingCommitsTheOneInFlight() throws IOException {
        Task task = start(0, new RecordingContext(), Map.of("batch.max.records", "2",
                "batch.pipelined", "true"), System::currentTimeMillis);
        task.open(List.of(P0));
        task.put(records(P0, 0, 2)); // closes batch 1: committed on the lane
        task.put(records(P0, 2, 4)); // closes batch 2 once batch 1 is committed
        task.put(records(P0, 4, 5)); // open
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), landedIds().stream().sorted().toList());
        assertEquals(3, metastore.partitionNames("sink", "hive_sink_ledger").size(), "three batches, each once");
    }

    @Test
    void pipelinedACommitThatFailsInFlightIsHeldAndCommittedBeforeAnythingElse() throws Exception {
        Task task = start(0, new RecordingContext(), Map.of("batch.max.records", "2",
                "batch.pipelined", "true"), System::currentTimeMillis);
        task.open(List.of(P0));
        metastore.failNextAddPartitions = true;
        task.put(records(P0, 0, 2)); // the commit fails on the lane; put has returned
        long deadline = System.nanoTime() + 10_000_000_000L;
        boolean thrown = false;
        while (!thrown && System.nanoTime() < deadline) {
            try {
                task.put(List.of()); // the failure surfaces at the first call after it
                Thread.sleep(10);
            } catch (RetriableException e) {
                thrown = true;
            }
        }
        assertTrue(thrown, "the failed commit is thrown to Connect, as on the task's thread");
        task.put(records(P0, 2, 3)); // the held batch is committed first, then this record is taken
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), task.preCommit(Map.of(P0, new OffsetAndMetadata(3))));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L), landedIds().stream().sorted().toList());
    }

    @Test
    void aCommitThatFailsAtConnectsOffsetCommitIsHeldNotThrown() throws IOException {
        Task task = start(0, new RecordingContext());
        task.open(List.of(P0));
        metastore.failNextAddPartitions = true;
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        metastore.failNextAddPartitions = true; // still away when Connect commits offsets and the batch is tried
        assertEquals(Map.of(), task.preCommit(Map.of(P0, new OffsetAndMetadata(2))),
                "nothing is committed yet, and nothing thrown (Connect would log an error and rewind the consumer)");
        task.put(List.of()); // the held batch is committed before anything else
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), task.preCommit(Map.of(P0, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 1L), landedIds());
    }

    @Test
    void aFencedTaskStopsAndNeverCommitsAgain() throws IOException {
        Task zombie = start(0, new RecordingContext());
        zombie.open(List.of(P0));
        zombie.put(records(P0, 0, 1));
        Task owner = start(0, new RecordingContext()); // a newer instance of task 0: the first is a zombie now
        owner.open(List.of(P0));

        assertThrows(TaskFencedException.class, () -> zombie.put(records(P0, 1, 2)));
        assertEquals(Map.of(), zombie.preCommit(Map.of(P0, new OffsetAndMetadata(2))),
                "a stopped task reports nothing and does not try its batch again");
        owner.put(records(P0, 0, 2));
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), owner.preCommit(Map.of(P0, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 1L), landedIds());
    }

    @Test
    void closingPartitionsMidBatchCommitsTheOpenBatchWhileTheTaskStillOwnsThem() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context, 10);
        task.open(List.of(P0, P1));
        task.put(records(P0, 5, 6));
        task.put(records(P1, 7, 8));
        task.close(List.of(P1));
        assertEquals(List.of(5L, 7L), landedIds());
        assertEquals(List.of(), context.rewinds);
        assertEquals(Map.of(P0, new OffsetAndMetadata(6)), task.preCommit(Map.of(P0, new OffsetAndMetadata(6))));
    }

    @Test
    void aCommitThatFailsAsPartitionsCloseDropsTheBatchAndRewindsThePartitionsThatStay() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context, 10);
        task.open(List.of(P0, P1));
        task.put(records(P0, 5, 6));
        task.put(records(P1, 7, 8));
        metastore.failNextConditionalWrite = true;
        task.close(List.of(P1));
        task.put(List.of()); // the seek waits for the next delivery (P0 could close first)
        assertEquals(List.of(Map.of(P0, 5L)), context.rewinds, "P0 stays assigned: it is read again from 5");
        assertEquals(Map.of(), task.preCommit(Map.of(P0, new OffsetAndMetadata(6))), "nothing was committed");
        assertEquals(List.of(), landedIds());
        task.put(records(P0, 5, 6));
        task.close(List.of(P0));
        assertEquals(List.of(5L), landedIds());
    }

    @Test
    void aDroppedBatchIsReadAgainFromTheRecordBeforeItSoThatACommitKafkaWasNotToldStillReachesIt()
            throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context, 3);
        task.open(List.of(P0, P1));
        task.put(records(P0, 0, 3)); // committed: 3
        assertEquals(Map.of(P0, new OffsetAndMetadata(3)), task.preCommit(Map.of(P0, new OffsetAndMetadata(3))));
        task.put(records(P0, 3, 6)); // committed: 6, not reported yet
        task.put(records(P0, 6, 7));
        task.put(records(P1, 0, 1));
        metastore.failNextConditionalWrite = true;
        task.close(List.of(P1)); // the open batch [P0 6, P1 0] fails and is dropped
        task.put(List.of()); // the seek waits for the next delivery (P0 could close first)
        assertEquals(List.of(Map.of(P0, 5L)), context.rewinds, "sought to 5, not 6: Connect would take 6 for "
                + "Kafka's offset and never send it; nor to the 3 Kafka holds, which may be a long way back");
        task.put(records(P0, 5, 8)); // 5 is committed: skipped
        assertEquals(Map.of(P0, new OffsetAndMetadata(6)), task.preCommit(Map.of(P0, new OffsetAndMetadata(8))));
        task.close(List.of(P0));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), landedIds(), "once each");
    }

    @Test
    void aHeldBatchWhosePartitionIsAssignedAgainIsDroppedAndEveryRecordLandsOnce() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context);
        task.open(List.of(P0));
        metastore.failNextConditionalWrite = true; // the batch's intent is not made durable
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        // a rebalance before Connect delivers again, with the metastore still away: the partition closes and comes
        // back to the same task
        metastore.failNextConditionalWrite = true;
        task.close(List.of(P0));
        task.open(List.of(P0));
        task.put(records(P0, 0, 4)); // nothing was committed: the consumer starts over
        assertEquals(Map.of(P0, new OffsetAndMetadata(4)), task.preCommit(Map.of(P0, new OffsetAndMetadata(4))));
        assertEquals(List.of(0L, 1L, 2L, 3L), landedIds(), "once each");
    }

    @Test
    void aHeldBatchWithADurableIntentIsRolledForwardWhenItsPartitionIsAssignedAgain() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context);
        task.open(List.of(P0));
        metastore.failNextAddPartitions = true; // the intent is durable, the batch is not marked yet
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        task.close(List.of(P0));
        task.open(List.of(P0));
        task.put(records(P0, 0, 4)); // the claim finished the batch: 0 and 1 are skipped
        assertEquals(List.of(), context.rewinds);
        assertEquals(Map.of(P0, new OffsetAndMetadata(4)), task.preCommit(Map.of(P0, new OffsetAndMetadata(4))));
        assertEquals(List.of(0L, 1L, 2L, 3L), landedIds(), "once each");
    }

    @Test
    void aHeldBatchWhosePartitionMovesToAnotherTaskIsDroppedAndTheTaskRunsOn() throws IOException {
        Task first = start(0, new RecordingContext());
        first.open(List.of(P0, P1));
        metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> first.put(records(P0, 0, 2)));
        first.close(List.of(P0)); // P0 moves to task 1; P1 stays
        Task second = start(1, new RecordingContext());
        second.open(List.of(P0));
        second.put(records(P0, 0, 2));
        assertEquals(Map.of(P0, new OffsetAndMetadata(2)), second.preCommit(Map.of(P0, new OffsetAndMetadata(2))));

        first.put(records(P1, 0, 2)); // not fenced: the held batch of P0 is gone
        assertEquals(Map.of(P1, new OffsetAndMetadata(2)), first.preCommit(Map.of(P1, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 0L, 1L, 1L), landedIds(), "P0's and P1's records, each once");
    }

    @Test
    void aHeldBatchIsDroppedWhenMorePartitionsAreAssignedAndItsOwnAreReadAgain() throws IOException {
        RecordingContext context = new RecordingContext();
        Task task = start(0, context);
        task.open(List.of(P0));
        metastore.failNextConditionalWrite = true;
        assertThrows(RetriableException.class, () -> task.put(records(P0, 0, 2)));
        task.open(List.of(P1)); // an incremental assignment: P0 stays, the held batch of it goes
        assertEquals(List.of(Map.of(P0, 0L)), context.rewinds);
        task.put(records(P0, 0, 2));
        task.put(records(P1, 0, 2));
        assertEquals(Map.of(P0, new OffsetAndMetadata(2), P1, new OffsetAndMetadata(2)),
                task.preCommit(Map.of(P0, new OffsetAndMetadata(2), P1, new OffsetAndMetadata(2))));
        assertEquals(List.of(0L, 0L, 1L, 1L), landedIds());
    }

    @Test
    void aStartingTaskWaitsForAMetastoreThatDoesNotAnswerYet() {
        AtomicInteger tries = new AtomicInteger();
        Task task = new Task(settings -> {
            if (tries.incrementAndGet() < 3) {
                throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (refused)", null);
            }
            return metastore;
        }, System::currentTimeMillis);
        task.initialize(new RecordingContext());
        task.start(props(0, Map.of()));
        started.add(task);
        assertEquals(3, tries.get(), "two failed tries, then the metastore answered");

        Task impatient = new Task(settings -> {
            throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (refused)", null);
        }, System::currentTimeMillis);
        impatient.initialize(new RecordingContext());
        MetastoreUnreachableException e = assertThrows(MetastoreUnreachableException.class,
                () -> impatient.start(props(1, Map.of("hive.metastore.start.wait.ms", "0"))));
        assertTrue(e.getMessage().contains("hive.metastore.start.wait.ms"), e.getMessage());
    }
}
