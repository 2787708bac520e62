package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.input.ConfluentFrame;
import io.hivesink.it.support.LedgerRows;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * The soak run made before a release, not part of the suite (it takes a quarter of an hour): Confluent-framed Avro
 * records flow through two stock workers for minutes while one of them, chosen at random, is killed with SIGKILL at
 * random moments and started again; then Hive must count every record once, and the ledger must cover each Kafka
 * offset once. Run it as docs/exactly-once.md says ({@code -Dsoak.records=10000000}); {@code soak.kills},
 * {@code soak.rate} (records per second) and {@code soak.seed} change the run, and the seed is printed so that a run
 * can be repeated.
 */
@EnabledIfSystemProperty(named = "soak.records", matches = "\\d+")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class SoakIT {

    static final String DATABASE = "soak";
    static final String TOPIC = "soak.events";
    static final String CONNECTOR = "soak";
    static final String EVENT_SCHEMA = "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"io.hivesink.soak\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"region\",\"type\":\"string\"},"
            + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"price\",\"type\":\"double\"},"
            + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    static final List<String> REGIONS = List.of("eu", "us", "apac");

    @Test
    void recordsThroughWorkersKilledAtRandomLandOnceEach(FailoverStack stack) throws Exception {
        long records = Long.getLong("soak.records");
        int kills = Integer.getInteger("soak.kills", 5);
        long rate = Long.getLong("soak.rate", 40_000);
        long seed = Long.getLong("soak.seed", System.nanoTime());
        Random random = new Random(seed);
        System.out.printf("Soak: %,d records at %,d/s, %d kills, seed %d%n", records, rate, kills, seed);
        stack.kafka().createTopic(TOPIC, 4);
        try (RegistryStandIn registry = new RegistryStandIn().start()) {
            int schemaId = registry.register(TOPIC + "-value", EVENT_SCHEMA);
            ConnectWorkerProcess[] workers = {startWorker(stack), startWorker(stack)};
            try {
                workers[0].rest().putConnector(CONNECTOR, connector(stack, registry));
                long started = System.nanoTime();
                AtomicLong produced = new AtomicLong();
                CompletableFuture<Void> production = CompletableFuture.runAsync(() -> EmbeddedStack.unchecked(() -> {
                    produce(stack, schemaId, records, rate, produced);
                    return null;
                }));
                List<String> killed = new ArrayList<>();
                for (int kill = 1; kill <= kills; kill++) {
                    Thread.sleep(20_000 + random.nextInt(30_000));
                    int victim = random.nextInt(workers.length);
                    workers[victim].kill();
                    killed.add(String.format("%s at %d s (%,d produced)", workers[victim].name(),
                            (System.nanoTime() - started) / 1_000_000_000, produced.get()));
                    Thread.sleep(random.nextInt(10_000));
                    workers[victim] = startWorker(stack);
                }
                production.join();
                long producedAt = System.nanoTime();
                stack.awaitCommittedToEnd(CONNECTOR, Duration.ofMinutes(30), List.of(TOPIC));
                long landedAt = System.nanoTime();
                System.out.printf("Soak: killed %s%n", String.join("; ", killed));
                System.out.printf("Soak: %,d records produced in %d s; all committed %d s after the last was "
                        + "produced (%d s in all, %,.0f records/s overall)%n", records,
                        (producedAt - started) / 1_000_000_000, (landedAt - producedAt) / 1_000_000_000,
                        (landedAt - started) / 1_000_000_000, records / ((landedAt - started) / 1e9));
            } finally {
                for (ConnectWorkerProcess worker : workers) {
                    worker.close();
                }
            }
        }
        List<Map<String, Object>> ledger = LedgerRows.of(stack.connectorConfig("x", DATABASE)
                .get("hive.metastore.uris"), stack::fileSystem, DATABASE, "soak_events");
        LedgerRows.assertEachOffsetOnce(ledger, TOPIC, records);
        long batches = ledger.stream().map(row -> row.get("batch_id")).distinct().count();
        long checkStarted = System.nanoTime();
        List<String> counts = stack.hive().queryTimeout(Duration.ofMinutes(20)).query("select count(*), "
                + "count(distinct id), min(id), max(id) from " + DATABASE + ".soak_events").get(0);
        System.out.printf("Soak: Hive counts %s records (count, distinct ids, min, max) in %d s; the ledger covers "
                + "each of the %,d offsets once, in %d batches%n", counts,
                (System.nanoTime() - checkStarted) / 1_000_000_000, records, batches);
        assertEquals(List.of(Long.toString(records), Long.toString(records), "0", Long.toString(records - 1)),
                counts, "every record once, through Hive");
    }

    private static ConnectWorkerProcess startWorker(FailoverStack stack) throws IOException {
        return stack.startWorker(CONNECTOR, Map.of("offset.flush.interval.ms", "10000"), Map.of());
    }

    private static Map<String, String> connector(FailoverStack stack, RegistryStandIn registry) {
        Map<String, String> config = stack.connectorConfig(CONNECTOR, DATABASE);
        config.put("topics", TOPIC);
        config.put("tasks.max", "4");
        config.put("partition.fields", "region");
        config.put("batch.max.records", "500000");
        config.put("batch.max.interval.ms", "30000");
        config.put("input.format", "confluent-avro");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("schema.registry.url", registry.url());
        return config;
    }

    /** Produces events 0 to {@code records - 1}, keyed by id, at about {@code rate} a second. */
    private static void produce(FailoverStack stack, int schemaId, long records, long rate, AtomicLong produced)
            throws Exception {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        settings.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        org.apache.avro.Schema schema = new org.apache.avro.Schema.Parser().parse(EVENT_SCHEMA);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        GenericRecord event = new GenericData.Record(schema);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = null;
        AtomicReference<Exception> failure = new AtomicReference<>();
        long started = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = stack.kafka().createProducer(settings)) {
            for (long id = 0; id < records; id++) {
                event.put("id", id);
                event.put("region", REGIONS.get((int) (id % REGIONS.size())));
                event.put("qty", (int) (id % 100));
                event.put("price", id * 0.25);
                event.put("at", 1_790_000_000_000L + id);
                bytes.reset();
                encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
                writer.write(event, encoder);
                encoder.flush();
                Future<RecordMetadata> unused = producer.send(new ProducerRecord<>(TOPIC,
                        Long.toString(id).getBytes(StandardCharsets.UTF_8),
                        ConfluentFrame.frame(schemaId, bytes.toByteArray())), (metadata, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                        });
                if ((id + 1) % 10_000 == 0) {
                    produced.set(id + 1);
                    long aheadMs = (id + 1) * 1_000 / rate - (System.nanoTime() - started) / 1_000_000;
                    if (aheadMs > 0) {
                        Thread.sleep(aheadMs);
                    }
                }
            }
            producer.flush();
            if (failure.get() != null) {
                throw new IllegalStateException("a record could not be produced", failure.get());
            }
            produced.set(records);
        }
    }
}
