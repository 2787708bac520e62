package io.hivesink.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Time;

/**
 * The task's own metrics registry, reported over JMX under the names the worker gives plugin metrics from Kafka 4.1
 * on ({@code kafka.connect:type=plugins,connector=...,task=...}): for workers that do not offer plugin metrics.
 */
final class JmxMetricsBackend implements MetricsBackend {

    /** The JMX domain of Connect's own metrics, and so of plugin metrics. */
    static final String JMX_DOMAIN = "kafka.connect";

    private final Metrics metrics;
    private final Map<String, String> taskTags = new LinkedHashMap<>();

    JmxMetricsBackend(String connector, int task) {
        metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext(JMX_DOMAIN));
        taskTags.put("connector", connector);
        taskTags.put("task", Integer.toString(task));
    }

    @Override
    public MetricName name(String name, String description, Map<String, String> extraTags) {
        Map<String, String> tags = new LinkedHashMap<>(taskTags);
        tags.putAll(extraTags);
        return metrics.metricName(name, GROUP, description, tags);
    }

    @Override
    public void add(MetricName name, MetricValueProvider<?> value) {
        metrics.addMetric(name, value);
    }

    @Override
    public Sensor sensor(String name) {
        return metrics.sensor(name);
    }

    @Override
    public void close() {
        metrics.close();
    }
}
