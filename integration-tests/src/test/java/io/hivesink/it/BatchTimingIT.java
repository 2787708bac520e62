package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * A batch is timed by the connector, not only by the worker's offset commits: on a stock worker that commits offsets
 * every ten minutes, a batch whose topic went quiet still lands when {@code batch.max.interval.ms} is up.
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
    void aWorkerThatCommitsOffsetsEveryTenMinutesStillLandsAQuietBatchWhenItsIntervalIsUp() throws Exception {
        String topic = "timing.quiet";
        stack.kafka().createTopic(topic, 1);
        try (ConnectWorkerProcess worker = stack.startWorker("long-flush",
                Map.of("offset.flush.interval.ms", "600000"), Map.of())) {
            Map<String, String> config = stack.connectorConfig("quiet-batches", DATABASE);
            config.put("topics", topic);
            config.put("tasks.max", "1");
            config.put("batch.max.records", "1000000");
            config.put("batch.max.interval.ms", "3000");
            worker.rest().putConnector("quiet-batches", config);
            EmbeddedStack.await("the task to run", Duration.ofMinutes(2), () -> {
                var status = EmbeddedStack.unchecked(() -> worker.rest().status("quiet-batches"));
                return status != null && status.path("tasks").size() == 1
                        && "RUNNING".equals(status.path("tasks").get(0).path("state").asText());
            });
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
