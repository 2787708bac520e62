package io.hivesink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.junit.jupiter.api.Test;

import io.hivesink.batch.CloseReason;
import io.hivesink.commit.CommitSummary;

/** The metrics through the JMX registry of workers without plugin metrics, read back from the platform's MBeans. */
class TaskMetricsTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    private double read(String name, String attribute) throws Exception {
        return ((Number) server.getAttribute(new ObjectName(name), attribute)).doubleValue();
    }

    @Test
    void commitsClosesCallsAndLagAreReadUnderThePluginMetricNames() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000);
        AtomicLong open = new AtomicLong(42);
        String task = "kafka.connect:type=plugins,connector=orders-sink,task=3";
        try (TaskMetrics metrics = new TaskMetrics(new JmxMetricsBackend("orders-sink", 3), now::get)) {
            metrics.gauge("open-batch-records", "Records in the open batch", open::get);
            metrics.batchClosed(CloseReason.INTERVAL);
            metrics.committed(new CommitSummary("b1", new CommitSummary.Landed(1_000, 2, 3, 1, 3, 65_536),
                    new CommitSummary.StepTimes(1, 40, 5, 6, 7, 8, 9)), 120,
                    Map.of("orders", 990_000L, "returns", 940_000L));
            metrics.called(12, 1, false);
            metrics.called(30, 2, true);
            metrics.deadLettered(2);
            metrics.closeStalled(300);
            metrics.closeStalled(100);

            assertEquals(42, read(task, "open-batch-records"));
            assertEquals(1, read(task, "batches-closed-by-interval-total"));
            assertEquals(0, read(task, "batches-closed-by-records-total"));
            assertEquals(1, read(task, "batches-committed-total"));
            assertEquals(1_000, read(task, "records-committed-total"));
            assertEquals(3, read(task, "files-committed-total"));
            assertEquals(65_536, read(task, "bytes-committed-total"));
            assertEquals(120, read(task, "commit-encode-time-ms-max"));
            assertEquals(40, read(task, "commit-stage-time-ms-avg"));
            assertEquals(1 + 40 + 5 + 6 + 7 + 8 + 9, read(task, "commit-time-ms-max"), "the steps after encoding");
            assertEquals(2, read(task, "metastore-calls-total"));
            assertEquals(30, read(task, "metastore-call-time-ms-max"));
            assertEquals(1, read(task, "metastore-retries-total"));
            assertEquals(1, read(task, "metastore-errors-total"));
            assertEquals(2, read(task, "dead-letter-records-total"));
            assertEquals(200, read(task, "batch-close-stall-time-ms-avg"));
            assertEquals(300, read(task, "batch-close-stall-time-ms-max"));
            assertEquals(400, read(task, "batch-close-stall-time-ms-total"));
            assertEquals(10_000, read(task + ",table=orders", "end-to-end-lag-ms"));
            now.addAndGet(5_000);
            assertEquals(65_000, read(task + ",table=returns", "end-to-end-lag-ms"), "read when read");
            metrics.committed(new CommitSummary("b2", new CommitSummary.Landed(10, 1, 1, 0, 1, 100),
                    new CommitSummary.StepTimes(0, 1, 1, 1, 1, 1, 1)), 1,
                    Map.of("orders", 1_004_000L));
            assertEquals(1_000, read(task + ",table=orders", "end-to-end-lag-ms"));
        }
        assertFalse(server.isRegistered(new ObjectName(task)), "removed when the task closes them");
        assertTrue(server.queryNames(new ObjectName(task + ",*"), null).isEmpty());
    }

    @Test
    void aTaskWhoseEarlierInstanceInTheWorkerHasNotStoppedYetStartsAndTakesItsMetricsOnceItHas() {
        try (Metrics worker = new Metrics()) {
            WorkerRegistry stuck = new WorkerRegistry(worker); // an instance stuck in a call, not stopped yet
            TaskMetrics earlier = new TaskMetrics(stuck, () -> 0);
            earlier.gauge("open-batch-records", "Records in the open batch", () -> 1);
            WorkerRegistry now = new WorkerRegistry(worker);
            TaskMetrics current = new TaskMetrics(now, () -> 0);
            current.gauge("open-batch-records", "Records in the open batch", () -> 2); // no failure: taken
            MetricName name = now.name("open-batch-records", "", Map.of());
            assertEquals(1L, worker.metric(name).metricValue(), "still the earlier instance's");
            earlier.close(); // Connect stops it at last
            current.committed(new CommitSummary("b1", new CommitSummary.Landed(1, 1, 1, 0, 1, 10),
                    new CommitSummary.StepTimes(0, 1, 1, 1, 1, 1, 1)), 1, Map.of());
            assertEquals(2L, worker.metric(name).metricValue(), "taken over at the next commit");
        }
    }

    /** One worker's registry, as Connect's plugin metrics share it: a name registered twice is refused. */
    private static final class WorkerRegistry implements MetricsBackend {
        private final Metrics worker;
        private final java.util.Set<MetricName> registered = new java.util.HashSet<>();

        WorkerRegistry(Metrics worker) {
            this.worker = worker;
        }

        @Override
        public MetricName name(String name, String description, Map<String, String> extraTags) {
            Map<String, String> tags = new java.util.LinkedHashMap<>(Map.of("connector", "orders-sink", "task", "3"));
            tags.putAll(extraTags);
            return worker.metricName(name, GROUP, description, tags);
        }

        @Override
        public void add(MetricName name, MetricValueProvider<?> value) {
            worker.addMetric(name, value);
            registered.add(name);
        }

        @Override
        public Sensor sensor(String name) {
            return worker.sensor("orders-sink:3:" + name);
        }

        @Override
        public void close() {
            registered.forEach(worker::removeMetric);
        }
    }

    @Test
    void compactionsAreCountedWithTheirFilesBytesAndOverdueRetirements() throws Exception {
        String task = "kafka.connect:type=plugins,connector=compact-sink,task=1";
        try (TaskMetrics metrics = new TaskMetrics(new JmxMetricsBackend("compact-sink", 1), () -> 0)) {
            metrics.compacted(new io.hivesink.compact.CompactionLog.Row("compact-sink", 1, "orders", "day=2026-11-29",
                    "/w/partitions_of_orders/day=2026-11-29/0", "/w/partitions_of_orders/day=2026-11-29/c-k-1",
                    List.of("part-a-1-00001.avro", "part-a-2-00001.avro", "part-a-3-00001.avro"),
                    List.of("a-1", "a-2", "a-3"), List.of("part-c-k-1-00001.avro"), 300, 3_000, 2_500, 5));
            metrics.notFinished();
            metrics.swept(new io.hivesink.compact.Retirement.Sweep(2, 1));

            assertEquals(1, read(task, "compactions-total"));
            assertEquals(3, read(task, "compaction-files-replaced-total"));
            assertEquals(1, read(task, "compaction-files-written-total"));
            assertEquals(2_500, read(task, "compaction-bytes-rewritten-total"));
            assertEquals(1, read(task, "compactions-not-finished-total"));
            assertEquals(2, read(task, "compaction-directories-retired-total"));
            assertEquals(1, read(task, "compaction-retirements-overdue"));
            metrics.swept(new io.hivesink.compact.Retirement.Sweep(0, 0));
            assertEquals(0, read(task, "compaction-retirements-overdue"), "as the last sweep left them");
        }
    }
}
