package io.hivesink.it.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.batch.CloseReason;
import io.hivesink.it.support.StackExtension;
import io.hivesink.it.support.TaskMetricsOverJmx;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectRelease;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.connect.PluginArchive;

/**
 * The plugin archive, unpacked on {@code plugin.path} of a stock Kafka Connect worker started as its own OS process,
 * on every worker release hive-sink supports: the worker finds it, validates a config through REST (refusing a bad
 * one with the connector's own message) and the connector lands every record, queried with Hive.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class ConnectWorkersIT {

    static final String DATABASE = "workers";
    static final int RECORDS = 300;
    /** The default partition.done.lateness.ms. */
    static final long LATENESS_MS = 600_000;
    /** How long a caught-up partition waits before the worker's clock stands in for its event time. */
    static final long IDLE_MS = 3_000;

    private FailoverStack stack;
    private KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    void startStack(FailoverStack failover) {
        stack = failover;
        producer = stack.kafka().createProducer(SampleData.producerSettings());
    }

    @AfterAll
    void closeProducer() {
        if (producer != null) {
            producer.close();
        }
    }

    @Test
    void everySupportedWorkerReleaseLoadsValidatesAndRunsThePlugin() throws Exception {
        List<String> tables = new ArrayList<>();
        for (ConnectRelease release : ConnectRelease.values()) {
            String suffix = release.version().replace('.', '_');
            String connector = "workers-" + suffix;
            String topic = "orders.kafka" + suffix;
            stack.kafka().createTopic(topic, 2);
            SampleData.produce(producer, topic, SampleData.ORDER, 0, RECORDS, SampleData::order);
            try (ConnectWorkerProcess worker = stack.startWorker(release, connector, Map.of(), Map.of())) {
                assertEquals(release.version(), worker.rest().workerVersion());
                assertPluginFound(worker, release);
                Map<String, String> config = stack.connectorConfig(connector, DATABASE);
                config.put("topics", topic);
                config.put("tasks.max", "2");
                config.put("partitioner", "time,field");
                config.put("partition.fields", "region");
                config.put("partition.done.idle.ms", Long.toString(IDLE_MS));

                Map<String, String> bad = new TreeMap<>(config);
                bad.put("batch.max.records", "0");
                JsonNode refused = worker.rest().validate(config.get("connector.class"), bad);
                assertEquals(1, refused.path("error_count").asInt(), release + ": " + refused);
                assertTrue(errorsOf(refused, "batch.max.records").contains("Value must be at least 1"),
                        release + ": " + refused);
                JsonNode accepted = worker.rest().validate(config.get("connector.class"), config);
                assertEquals(0, accepted.path("error_count").asInt(), release + ": " + accepted);

                worker.rest().putConnector(connector, config);
                stack.awaitCommittedToEnd(connector, Duration.ofMinutes(2), List.of(topic));
                TaskMetricsOverJmx first = metricsOnceCounted(worker, connector, RECORDS);
                SampleData.produce(producer, topic, SampleData.ORDER, RECORDS, 2 * RECORDS, SampleData::order);
                long producedAt = System.currentTimeMillis();
                stack.awaitCommittedToEnd(connector, Duration.ofMinutes(2), List.of(topic));
                TaskMetricsOverJmx second = metricsOnceCounted(worker, connector, 2 * RECORDS);
                assertMetricsMoved(release, first, second, topic.replace('.', '_'));
                assertIdlePartitionsMoveTheWatermark(release, worker, connector, topic.replace('.', '_'),
                        producedAt);
                assertEquals(release.version().startsWith("3."), worker.logLines().stream()
                        .anyMatch(l -> l.contains("This worker predates plugin metrics")),
                        release + ": the worker's plugin metrics from Kafka 4.1 on, the task's own JMX before");
            }
            tables.add(topic.replace('.', '_'));
        }

        StringBuilder sql = new StringBuilder();
        for (String table : tables) {
            sql.append(sql.length() == 0 ? "" : " union all ").append("select '").append(table)
                    .append("', count(*), count(distinct id), sum(qty) from ").append(DATABASE).append('.')
                    .append(table);
        }
        long qty = 0;
        for (long id = 0; id < 2 * RECORDS; id++) {
            qty += SampleData.qty(id);
        }
        Map<String, List<String>> landed = new TreeMap<>();
        for (List<String> row : stack.hive().query(sql.toString())) {
            landed.put(row.get(0), row.subList(1, row.size()));
        }
        Map<String, List<String>> expected = new TreeMap<>();
        for (String table : tables) {
            expected.put(table, List.of(Integer.toString(2 * RECORDS), Integer.toString(2 * RECORDS),
                    Long.toString(qty)));
        }
        assertEquals(expected, landed, "every record once, on every worker release");
    }

    /**
     * The archive in Confluent Hub's layout, installed under a worker's plugin.path as {@code confluent connect plugin
     * install} does: its manifest says what the Hub needs, and a stock worker loads the plugin from it and lands
     * records with it.
     */
    @Test
    void theHubArchiveInstalledAsConfluentsCliDoesLoadsInAStockWorker() throws Exception {
        Path zip = PluginArchive.built(PluginArchive.HUB_COMPONENT + "-.*\\.zip");
        String top = zip.getFileName().toString().replaceAll("\\.zip$", "");
        JsonNode manifest;
        List<String> entries;
        try (ZipFile archive = new ZipFile(zip.toFile())) {
            entries = archive.stream().map(ZipEntry::getName).toList();
            try (InputStream in = archive.getInputStream(archive.getEntry(top + "/manifest.json"))) {
                manifest = new ObjectMapper().readTree(in);
            }
        }
        assertEquals(top, manifest.path("owner").path("username").asText() + "-" + manifest.path("name").asText()
                + "-" + manifest.path("version").asText(), "the archive is named <owner>-<name>-<version>");
        assertEquals("sink", manifest.path("component_types").path(0).asText());
        assertEquals("Apache License 2.0", manifest.path("license").path(0).path("name").asText());
        assertTrue(manifest.path("title").asText().startsWith("hive-sink"), manifest.toString());
        assertTrue(manifest.path("release_date").asText().matches("\\d{4}-\\d{2}-\\d{2}"), manifest.toString());
        assertTrue(manifest.path("requirements").path(0).asText().contains("3.9"), manifest.toString());
        for (String expected : List.of("/doc/LICENSE", "/doc/README.md", "/doc/configuration.md",
                "/etc/hive-sink-connector.properties")) {
            assertTrue(entries.contains(top + expected), expected + " in " + entries);
        }
        assertTrue(entries.stream().anyMatch(e -> e.matches(top + "/lib/hive-sink-connector-.*\\.jar")),
                entries.toString());

        Path pluginPath = stack.workDir().resolve("hub-plugins").toAbsolutePath();
        PluginArchive.installHubArchive(pluginPath);
        String topic = "orders.hub";
        stack.kafka().createTopic(topic, 1);
        SampleData.produce(producer, topic, SampleData.ORDER, 0, RECORDS, SampleData::order);
        try (ConnectWorkerProcess worker = stack.startWorker(ConnectRelease.KAFKA_4_3, "hub",
                Map.of("plugin.path", pluginPath.toString()), Map.of())) {
            assertPluginFound(worker, ConnectRelease.KAFKA_4_3);
            Map<String, String> config = stack.connectorConfig("hub", DATABASE);
            config.put("topics", topic);
            worker.rest().putConnector("hub", config);
            stack.awaitCommittedToEnd("hub", Duration.ofMinutes(2), List.of(topic));
        }
        assertEquals(List.of(List.of(Integer.toString(RECORDS), Integer.toString(RECORDS))), stack.hive().query(
                "select count(*), count(distinct id) from " + DATABASE + ".orders_hub"));
    }

    /**
     * The metrics once they count the records committed: a task counts a batch when its thread takes the commit's
     * outcome, at its next call from Connect, a moment after the metastore says the batch is committed.
     */
    private static TaskMetricsOverJmx metricsOnceCounted(ConnectWorkerProcess worker, String connector,
            long records) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        TaskMetricsOverJmx metrics = TaskMetricsOverJmx.read(worker, connector);
        while (metrics.sum("records-committed-total") < records && System.nanoTime() < deadline) {
            Thread.sleep(200);
            metrics = TaskMetricsOverJmx.read(worker, connector);
        }
        return metrics;
    }

    /**
     * Once both Kafka partitions have landed everything for partition.done.idle.ms, the worker's clock stands in for
     * their event times: each task's watermark passes any the records could give (their timestamps are before
     * {@code producedAt}), through the consumer the task reaches in each release's context.
     */
    private static void assertIdlePartitionsMoveTheWatermark(ConnectRelease release, ConnectWorkerProcess worker,
            String connector, String table, long producedAt) throws Exception {
        long beyondRecords = producedAt + IDLE_MS - LATENESS_MS;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        List<Double> watermarks = List.of();
        while (System.nanoTime() < deadline) {
            watermarks = TaskMetricsOverJmx.read(worker, connector).perTask(table, "table-watermark-ms");
            if (watermarks.size() == 2 && watermarks.stream().allMatch(w -> w >= beyondRecords)) {
                return;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError(release + ": the idle partitions did not move the watermarks " + watermarks
                + " past " + beyondRecords);
    }

    /**
     * The same metric names on every release, moving with the data: the second round's records and batches are
     * counted, the commit steps timed, the metastore called, the table's lag known, the open batch empty again.
     */
    private static void assertMetricsMoved(ConnectRelease release, TaskMetricsOverJmx first,
            TaskMetricsOverJmx second, String table) {
        System.out.printf("ConnectWorkersIT %s metrics after the second round: %s%n", release, second);
        assertEquals(2, second.tasks(), release + ": an MBean per task " + second);
        assertEquals(RECORDS, first.sum("records-committed-total"), release + " " + first);
        assertEquals(2 * RECORDS, second.sum("records-committed-total"), release + " " + second);
        assertTrue(second.sum("batches-committed-total") > first.sum("batches-committed-total"), release + "");
        assertTrue(second.sum("files-committed-total") > first.sum("files-committed-total"), release + "");
        assertTrue(second.sum("bytes-committed-total") > first.sum("bytes-committed-total"), release + "");
        assertTrue(second.sum("metastore-calls-total") > first.sum("metastore-calls-total"), release + "");
        long closed = 0;
        for (CloseReason reason : CloseReason.values()) {
            closed += second.sum("batches-closed-by-" + reason.metricPart() + "-total");
        }
        assertEquals(second.sum("batches-committed-total"), closed, release + ": every batch closed for a reason, "
                + "counted once " + second);
        assertTrue(second.max("commit-stage-time-ms-max") > 0, release + ": staging timed " + second);
        assertEquals(0, second.sum("open-batch-records"), release + ": nothing left open " + second);
        assertEquals(0, second.sum("fencing-refusals-total"), release + "");
        assertEquals(0, second.sum("dead-letter-records-total"), release + "");
        assertTrue(second.memoryBudgetBytes() > 0, release + ": the worker's budget " + second);
        double lag = second.tableLag(table);
        assertTrue(lag >= 0 && lag < 5 * 60_000, release + ": the table's end-to-end lag " + lag + " ms");
        // partitioned by time on the records' timestamps (now): the watermark is now less the default lateness
        List<Double> behind = second.perTask(table, "table-watermark-lag-ms");
        assertTrue(behind.stream().allMatch(w -> w == -1 || w >= LATENESS_MS), release + ": never ahead " + behind);
        assertTrue(behind.stream().anyMatch(w -> w >= LATENESS_MS && w < LATENESS_MS + 5 * 60_000),
                release + ": a task that read both tasks' event times has the table's watermark " + behind);
    }

    private static void assertPluginFound(ConnectWorkerProcess worker, ConnectRelease release) throws Exception {
        for (JsonNode plugin : worker.rest().connectorPlugins()) {
            if (plugin.path("class").asText().equals("io.hivesink.HiveSinkConnector")) {
                assertEquals("sink", plugin.path("type").asText(), release + ": " + plugin);
                return;
            }
        }
        throw new AssertionError(release + " did not find the plugin: " + worker.rest().connectorPlugins());
    }

    private static String errorsOf(JsonNode validation, String key) {
        for (JsonNode config : validation.path("configs")) {
            if (key.equals(config.path("value").path("name").asText())) {
                return config.path("value").path("errors").toString();
            }
        }
        return "(no entry for " + key + ")";
    }
}
