package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.it.support.LedgerRows;
import io.hivesink.it.support.StackExtension;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.hive.MetastoreTableReader;

/**
 * Batches are sized and timed by the connector, not by the worker's offset commits: on a stock worker that commits
 * offsets every half second, batches still fill to {@code batch.max.records}, and a large open batch lives until a
 * rebalance closes its partitions, lands once, and reaches Kafka's group offsets through the partitions' next owners;
 * on one that commits every ten minutes, a batch whose topic went quiet still lands when
 * {@code batch.max.interval.ms} is up; and with {@code batch.max.idle.ms}, a burst lands once no record has come
 * for that long.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class BatchTimingIT {

    static final String DATABASE = "timing";

    private FailoverStack stack;
    private KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    void start(FailoverStack failover) {
        stack = failover;
        producer = stack.kafka().createProducer(SampleData.producerSettings());
    }

    @AfterAll
    void stop() {
        if (producer != null) {
            producer.close();
        }
    }

    @Test
    void aWorkerThatCommitsOffsetsEveryHalfSecondStillGetsFullBatches() throws Exception {
        String topic = "timing.full";
        stack.kafka().createTopic(topic, 1);
        SampleData.produce(producer, topic, SampleData.ORDER, 0, 3_000, SampleData::order);
        try (ConnectWorkerProcess worker = stack.startWorker("short-flush",
                Map.of("offset.flush.interval.ms", "500"), Map.of())) {
            Map<String, String> config = connector("full-batches", topic, 1, 1_000, 600_000);
            worker.rest().putConnector("full-batches", config);
            stack.awaitCommittedToEnd("full-batches", Duration.ofMinutes(3), List.of(topic));
        }
        Map<String, Long> perBatch = recordsPerBatch("timing_full");
        assertEquals(3, perBatch.size(), "three batches: " + perBatch);
        assertTrue(perBatch.values().stream().allMatch(n -> n == 1_000L), "each of 1,000 records: " + perBatch);
    }

    @Test
    void aRebalanceInTheMiddleOfALargeOpenBatchLandsItOnceAndKafkasOffsetsCatchUp() throws Exception {
        String topic = "timing.rebalance";
        int records = 4_000;
        stack.kafka().createTopic(topic, 2);
        Map<String, String> workerProps = Map.of("offset.flush.interval.ms", "500");
        try (ConnectWorkerProcess first = stack.startWorker("rebalance", workerProps, Map.of())) {
            Map<String, String> config = connector("rebalance-batches", topic, 2, 1_000_000, 600_000);
            first.rest().putConnector("rebalance-batches", config);
            awaitRunning(first, "rebalance-batches", 2);
            // the records come once each task holds its partition: a task that joined the group late would take a
            // partition from the other, whose batch that rebalance would close before the one under test
            awaitEachTaskOwnsOnePartition("connect-rebalance-batches", 2);
            SampleData.produce(producer, topic, SampleData.ORDER, 0, records, SampleData::order);
            Thread.sleep(10_000); // the tasks take the records; Connect commits offsets twenty times meanwhile
            assertEquals(Map.of(), recordsPerBatch("timing_rebalance"), "the open batches stay open");
            try (ConnectWorkerProcess second = stack.startWorker("rebalance", workerProps, Map.of())) {
                // a task moves to the new worker: every partition of the group is revoked (closing the batches
                // while their tasks own them) and assigned again, and the next owners report what was committed
                stack.awaitCommittedToEnd("rebalance-batches", Duration.ofMinutes(2), List.of(topic));
                second.rest().status("rebalance-batches"); // still answering: nothing was torn down under us
            }
        }
        List<Map<String, Object>> ledger = LedgerRows.of(stack.connectorConfig("x", DATABASE)
                .get("hive.metastore.uris"), stack::fileSystem, DATABASE, "timing_rebalance");
        LedgerRows.assertEachOffsetOnce(ledger, topic, records);
        assertEquals(2, ledger.stream().map(row -> row.get("batch_id")).distinct().count(),
                "one batch per task, closed by the rebalance: " + recordsPerBatch("timing_rebalance"));
        Set<Long> ids = new HashSet<>();
        List<Map<String, Object>> rows;
        try (ThriftMetastore metastore = ThriftMetastore.connect(new MetastoreSettings(
                List.of(stack.connectorConfig("x", DATABASE).get("hive.metastore.uris")), false, "", ""))) {
            rows = new MetastoreTableReader(metastore, stack.fileSystem()).rows(DATABASE, "timing_rebalance");
        }
        rows.forEach(row -> ids.add((Long) row.get("id")));
        assertEquals(records, rows.size(), "every record landed");
        assertEquals(records, ids.size(), "none twice");
    }

    private Map<String, String> connector(String name, String topic, int tasks, long maxRecords, long intervalMs) {
        Map<String, String> config = stack.connectorConfig(name, DATABASE);
        config.put("topics", topic);
        config.put("tasks.max", Integer.toString(tasks));
        config.put("batch.max.records", Long.toString(maxRecords));
        config.put("batch.max.interval.ms", Long.toString(intervalMs));
        return config;
    }

    private static void awaitRunning(ConnectWorkerProcess worker, String connector, int tasks)
            throws InterruptedException {
        EmbeddedStack.await(tasks + " tasks to run", Duration.ofMinutes(2), () -> {
            var status = EmbeddedStack.unchecked(() -> worker.rest().status(connector));
            if (status == null || status.path("tasks").size() != tasks) {
                return false;
            }
            for (var task : status.path("tasks")) {
                if (!"RUNNING".equals(task.path("state").asText())) {
                    return false;
                }
            }
            return true;
        });
    }

    private void awaitEachTaskOwnsOnePartition(String group, int tasks) throws InterruptedException {
        try (Admin admin = stack.kafka().createAdminClient()) {
            EmbeddedStack.await("group " + group + " stable with " + tasks + " members of one partition each",
                    Duration.ofMinutes(2), () -> EmbeddedStack.unchecked(() -> {
                        ConsumerGroupDescription described = admin.describeConsumerGroups(List.of(group))
                                .describedGroups().get(group).get();
                        return described.groupState() == GroupState.STABLE && described.members().size() == tasks
                                && described.members().stream()
                                        .allMatch(m -> m.assignment().topicPartitions().size() == 1);
                    }));
        }
    }

    @Test
    void aWorkerThatCommitsOffsetsEveryTenMinutesStillLandsAQuietBatchWhenItsIntervalIsUp() throws Exception {
        String topic = "timing.quiet";
        stack.kafka().createTopic(topic, 1);
        try (ConnectWorkerProcess worker = stack.startWorker("long-flush",
                Map.of("offset.flush.interval.ms", "600000"), Map.of())) {
            Map<String, String> config = connector("quiet-batches", topic, 1, 1_000_000, 3_000);
            worker.rest().putConnector("quiet-batches", config);
            awaitRunning(worker, "quiet-batches", 1);
            Thread.sleep(3_000); // the consumer has joined and polls: the records below arrive in one delivery
            long producedAt = System.nanoTime();
            SampleData.produce(producer, topic, SampleData.ORDER, 0, 10, SampleData::order);
            EmbeddedStack.await("the 10 records to land", Duration.ofMinutes(2),
                    () -> recordsPerBatch("timing_quiet").values().stream().mapToLong(Long::longValue).sum() == 10);
            Duration landedAfter = Duration.ofNanos(System.nanoTime() - producedAt);
            System.out.printf("BatchTimingIT: a quiet batch (interval 3 s, offset commits every 600 s) landed %d ms "
                    + "after its records were produced%n", landedAfter.toMillis());
            assertTrue(landedAfter.compareTo(Duration.ofSeconds(60)) < 0,
                    "landed within the interval plus the commit, long before the worker's offset commit: "
                            + landedAfter);
        }
    }

    @Test
    void aBatchNoRecordHasComeToForItsIdleTimeLandsLongBeforeItsInterval() throws Exception {
        String topic = "timing.bursts";
        stack.kafka().createTopic(topic, 1);
        try (ConnectWorkerProcess worker = stack.startWorker("idle-close", Map.of(), Map.of())) {
            Map<String, String> config = connector("burst-batches", topic, 1, 1_000_000, 600_000);
            config.put("batch.max.idle.ms", "2000");
            worker.rest().putConnector("burst-batches", config);
            awaitRunning(worker, "burst-batches", 1);
            Thread.sleep(3_000); // the consumer has joined and polls
            long producedAt = System.nanoTime();
            SampleData.produce(producer, topic, SampleData.ORDER, 0, 10, SampleData::order);
            EmbeddedStack.await("the first burst to land", Duration.ofMinutes(2),
                    () -> recordsPerBatch("timing_bursts").values().stream().mapToLong(Long::longValue).sum() == 10);
            Duration landedAfter = Duration.ofNanos(System.nanoTime() - producedAt);
            SampleData.produce(producer, topic, SampleData.ORDER, 10, 20, SampleData::order);
            EmbeddedStack.await("the second burst to land", Duration.ofMinutes(2),
                    () -> recordsPerBatch("timing_bursts").values().stream().mapToLong(Long::longValue).sum() == 20);
            System.out.printf("BatchTimingIT: a burst of 10 records (idle time 2 s, interval 600 s) landed %d ms after "
                    + "it was produced%n", landedAfter.toMillis());
            assertTrue(landedAfter.compareTo(Duration.ofSeconds(2)) >= 0
                    && landedAfter.compareTo(Duration.ofSeconds(60)) < 0,
                    "landed on the idle time plus the commit, not at once nor at the 10-minute interval: "
                            + landedAfter);
        }
        Map<String, Long> perBatch = recordsPerBatch("timing_bursts");
        assertEquals(List.of(10L, 10L), List.copyOf(perBatch.values()), "a batch per burst: " + perBatch);
    }

    /** The ledger's records per batch of the table (none if nothing landed yet). */
    private Map<String, Long> recordsPerBatch(String table) {
        Map<String, Long> perBatch = new TreeMap<>();
        for (Map<String, Object> row : LedgerRows.of(stack.connectorConfig("x", DATABASE).get("hive.metastore.uris"),
                stack::fileSystem, DATABASE, table)) {
            perBatch.merge(row.get("batch_id").toString(), (Long) row.get("record_count"), Long::sum);
        }
        return perBatch;
    }
}
