package io.hivesink.it.readers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.it.support.StackExtension;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.hive.MetastoreTableReader;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * The reader matrix on one metastore release: {@link MatrixRows} produced as Confluent-framed Avro (schema v1,
 * then v2 with a column more) to three topics, landed by a stock Connect worker with the packaged plugin and two
 * tasks in an Avro, a Parquet and an ORC table partitioned by a field (partitions opened before the evolution and
 * after it, by both tasks), then read by each of the subclass's readers with the whole {@link Battery}. A difference
 * from the {@link Oracle} fails the test unless a {@link Limitation} explains it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
abstract class ReaderMatrix {

    static final String DATABASE = "matrix";
    static final List<String> FORMATS = List.of("avro", "parquet", "orc");
    /** The same topics landed again, in tables partitioned by time too, whose done hour is compacted. */
    static final Landing COMPACTED = new Landing("matrix_compacted", "matrix-compacted", true);
    static final List<Landing> LANDINGS = List.of(new Landing(DATABASE, "matrix", false), COMPACTED);
    private static final Duration LANDING = Duration.ofMinutes(3);
    /** The Kafka timestamp of every record: an hour the compacted landing's tables see done at once. */
    private final long recordTime = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3))
            .plus(Duration.ofMinutes(10)).toEpochMilli();

    private FailoverStack stack;
    private RegistryStandIn registry;

    @BeforeAll
    void land(FailoverStack failoverStack) throws Exception {
        stack = failoverStack;
        registry = new RegistryStandIn().start();
        List<String> topics = FORMATS.stream().map(format -> "matrix." + format).toList();
        Map<String, int[]> schemaIds = new java.util.HashMap<>();
        for (String topic : topics) {
            stack.kafka().createTopic(topic, 2);
            schemaIds.put(topic, new int[] {registry.register(topic + "-value", MatrixRows.V1.toString()),
                registry.register(topic + "-value", MatrixRows.V2.toString())});
        }
        try (KafkaProducer<byte[], byte[]> producer = stack.kafka().createProducer(SampleData.producerSettings());
                ConnectWorkerProcess worker = stack.startWorker("matrix", Map.of(), Map.of())) {
            send(producer, topics, schemaIds, 0, MatrixRows.V1_ROWS);
            Map<String, String> config = stack.connectorConfig("matrix", DATABASE);
            config.put("topics", String.join(",", topics));
            config.put("tasks.max", "2");
            config.put("input.format", "confluent-avro");
            config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
            config.remove("value.converter.schemas.enable");
            config.put("schema.registry.url", registry.url());
            config.put("partitioner", "field");
            config.put("partition.fields", "bucket");
            config.put("table.matrix_parquet.format", "parquet");
            config.put("table.matrix_orc.format", "orc");
            worker.rest().putConnector("matrix", config);
            stack.awaitCommittedToEnd("matrix", LANDING, topics);
            send(producer, topics, schemaIds, MatrixRows.V1_ROWS, MatrixRows.ROWS); // v2: a column more
            stack.awaitCommittedToEnd("matrix", LANDING, topics);
            landCompacted(worker, config, topics);
        }
    }

    /**
     * Lands the topics again, both schemas' records, in small batches into tables partitioned by bucket and by the
     * records' (Kafka) time, and waits until every one of their partitions is compacted: the battery then reads files
     * merged by copying Avro blocks and by encoding Parquet and ORC again.
     */
    private void landCompacted(ConnectWorkerProcess worker, Map<String, String> plain, List<String> topics)
            throws Exception {
        // the plain landing's settings, with what the stack sets apart for another connector and database
        Map<String, String> config = new java.util.HashMap<>(plain);
        Map<String, String> plainDefaults = stack.connectorConfig("matrix", DATABASE);
        stack.connectorConfig(COMPACTED.connector(), COMPACTED.database()).forEach((key, value) -> {
            if (!value.equals(plainDefaults.get(key))) {
                config.put(key, value);
            }
        });
        config.put("partitioner", "field,time");
        config.put("partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        config.put("partition.done.lateness.ms", "600000");
        config.put("partition.done.idle.ms", "5000");
        config.put("batch.max.records", "4"); // several files of each schema per partition
        config.put("compaction.min.files", "3");
        config.put("compaction.retention.ms", "0");
        Set<String> expected = new TreeSet<>();
        for (String format : FORMATS) {
            config.put("table.matrix_" + format + ".compaction.enabled", "true");
            for (int id = 0; id < MatrixRows.ROWS; id++) {
                expected.add("matrix_" + format + " bucket=" + MatrixRows.bucket(id));
            }
        }
        worker.rest().putConnector(COMPACTED.connector(), config);
        stack.awaitCommittedToEnd(COMPACTED.connector(), LANDING, topics);
        Set<String> compacted = new TreeSet<>();
        EmbeddedStack.await("every partition of " + COMPACTED + " compacted: " + expected, LANDING, () -> {
            compacted.clear();
            compacted.addAll(compactedPartitions());
            return compacted.equals(expected);
        });
    }

    /** The compaction log's partitions, as {@code <table> bucket=<bucket>}. */
    private Set<String> compactedPartitions() {
        Set<String> partitions = new TreeSet<>();
        try (ThriftMetastore metastore = ThriftMetastore.connect(new MetastoreSettings(
                List.of(stack.metastore().uri()), false, "", ""))) {
            if (metastore.getTable(COMPACTED.database(), "hive_sink_compactions").isEmpty()) {
                return partitions;
            }
            for (Map<String, Object> row : new MetastoreTableReader(metastore, stack.tableFileSystem())
                    .rows(COMPACTED.database(), "hive_sink_compactions")) {
                String partition = row.get("partition_name").toString();
                partitions.add(row.get("table_name") + " " + partition.substring(0, partition.indexOf('/')));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return partitions;
    }

    @AfterAll
    void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    FailoverStack stack() {
        return stack;
    }

    /**
     * Runs the battery with each reader on every format; fails with every difference no {@link Limitation}
     * explains, and prints those one does.
     */
    void assertReadersAgreeWithTheOracle(List<Limitation> known, MatrixReader... readers) throws Exception {
        List<String> unexplained = new ArrayList<>();
        for (MatrixReader reader : readers) {
            long started = System.nanoTime();
            Map<Landing, Map<String, String>> byLanding = Battery.run(reader, LANDINGS, FORMATS);
            for (Map.Entry<Landing, Map<String, String>> landing : byLanding.entrySet()) {
                report(known, reader, landing.getKey(), landing.getValue(), started, unexplained);
            }
        }
        assertTrue(unexplained.isEmpty(), unexplained.size() + " answers differ from the oracle's:\n"
                + String.join("\n", unexplained));
    }

    private static void report(List<Limitation> known, MatrixReader reader, Landing landing,
            Map<String, String> differences, long started, List<String> unexplained) {
            Map<Limitation, List<String>> explained = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, String> difference : differences.entrySet()) {
                Limitation why = Limitation.find(known, reader.name(), difference.getKey(),
                        difference.getValue());
                String line = reader.name() + " " + landing + " " + difference.getKey() + ": "
                        + difference.getValue();
                if (why == null) {
                    unexplained.add(line);
                } else {
                    explained.computeIfAbsent(why, w -> new ArrayList<>()).add(line);
                }
            }
            explained.forEach((why, lines) -> System.out.println("Known limitation, " + lines.size() + " answers ("
                    + lines.get(0).substring(0, Math.min(200, lines.get(0).length())) + (lines.size() > 1 ? "; ..."
                    : "") + "): " + why.why()));
            System.out.printf("Reader matrix: %s read %s of %s (%d s since the start): %d differences, %d of "
                    + "them known limitations%n", reader.name(), FORMATS, landing,
                    (System.nanoTime() - started) / 1_000_000_000L, differences.size(),
                    explained.values().stream().mapToInt(List::size).sum());
    }

    private void send(KafkaProducer<byte[], byte[]> producer, List<String> topics,
            Map<String, int[]> schemaIds, int from, int to) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (String topic : topics) {
            int schemaId = schemaIds.get(topic)[from < MatrixRows.V1_ROWS ? 0 : 1];
            for (int id = from; id < to; id++) {
                records.add(new ProducerRecord<>(topic, MatrixRows.kafkaPartition(id), recordTime, null,
                        framed(schemaId, MatrixRows.avro(id))));
            }
        }
        SampleData.sendAll(producer, records);
    }

    /** Confluent's wire format, written here: magic byte 0, the schema id big-endian, the Avro binary datum. */
    private static byte[] framed(int schemaId, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
