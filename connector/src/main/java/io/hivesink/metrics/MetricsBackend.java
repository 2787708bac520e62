package io.hivesink.metrics;

import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a task's metrics are registered: the worker's plugin metrics where it offers them (Kafka 4.1 and later,
 * KIP-877), or a registry of the task's own on older workers. Either way each one is the MBean
 * {@code kafka.connect:type=plugins,connector=<connector>,task=<task>[,<extra tags>]} with the metric's name as its
 * attribute, so dashboards and alerts need not know the worker's release.
 */
public interface MetricsBackend extends AutoCloseable {

    /** The group the worker gives plugin metrics; the {@code type} of their MBeans. */
    String GROUP = "plugins";

    /** A metric's name with the task's tags (connector, task) and {@code extraTags}. */
    MetricName name(String name, String description, Map<String, String> extraTags);

    /** Registers a gauge or other value read when the metric is read. */
    void add(MetricName name, MetricValueProvider<?> value);

    /** A sensor of the task's own, its name made unique in the worker. */
    Sensor sensor(String name);

    /** Removes what the task registered (the worker also removes plugin metrics after the task stops). */
    @Override
    void close();

    /** The worker's plugin metrics if it offers them, else a registry of the task's own exposed over JMX. */
    static MetricsBackend forTask(SinkTaskContext context, String connector, int task) {
        Logger log = LoggerFactory.getLogger(MetricsBackend.class);
        MetricsBackend plugin = PluginMetricsBackend.of(context, connector, task);
        if (plugin != null) {
            log.debug("Task {} of {} registers its metrics with the worker's plugin metrics", task, connector);
            return plugin;
        }
        log.info("This worker predates plugin metrics (Kafka 4.1): task {} of {} registers its metrics over JMX "
                + "itself, under the same names", task, connector);
        return new JmxMetricsBackend(connector, task);
    }
}
