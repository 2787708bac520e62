package io.hivesink.metrics;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The worker's plugin metrics (KIP-877, Kafka 4.1 and later), reached by reflection: the plugin is built against the
 * oldest Connect API it supports, where neither {@code SinkTaskContext.pluginMetrics()} nor {@code PluginMetrics}
 * exists. The worker tags each metric with the connector and task, and removes them all once the task has stopped.
 */
final class PluginMetricsBackend implements MetricsBackend {

    private final Object pluginMetrics;
    private final Method metricName;
    private final Method addMetric;
    private final Method addSensor;
    private final String sensorPrefix;

    private PluginMetricsBackend(Object pluginMetrics, Class<?> type, String sensorPrefix)
            throws ReflectiveOperationException {
        this.pluginMetrics = pluginMetrics;
        this.metricName = type.getMethod("metricName", String.class, String.class, LinkedHashMap.class);
        this.addMetric = type.getMethod("addMetric", MetricName.class, MetricValueProvider.class);
        this.addSensor = type.getMethod("addSensor", String.class);
        this.sensorPrefix = sensorPrefix;
    }

    /** The worker's plugin metrics for the task, or null if the worker has none (before Kafka 4.1). */
    static PluginMetricsBackend of(SinkTaskContext context, String connector, int task) {
        try {
            Method accessor = SinkTaskContext.class.getMethod("pluginMetrics");
            Object pluginMetrics = accessor.invoke(context);
            if (pluginMetrics == null) {
                return null;
            }
            Class<?> type = Class.forName("org.apache.kafka.common.metrics.PluginMetrics", false,
                    SinkTaskContext.class.getClassLoader());
            // sensors are named across the worker: two tasks must not share one
            return new PluginMetricsBackend(pluginMetrics, type, "hive-sink:" + connector + ":" + task + ":");
        } catch (ReflectiveOperationException | LinkageError | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public MetricName name(String name, String description, Map<String, String> extraTags) {
        return (MetricName) invoke(metricName, name, description, new LinkedHashMap<>(extraTags));
    }

    @Override
    public void add(MetricName name, MetricValueProvider<?> value) {
        invoke(addMetric, name, value);
    }

    @Override
    public Sensor sensor(String name) {
        return (Sensor) invoke(addSensor, sensorPrefix + name);
    }

    /** Nothing to do: the worker closes the task's plugin metrics after the task stops. */
    @Override
    public void close() {}

    private Object invoke(Method method, Object... args) {
        try {
            return method.invoke(pluginMetrics, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException runtime ? runtime
                    : new ConnectException("Plugin metrics call " + method.getName() + " failed", cause);
        } catch (IllegalAccessException e) {
            throw new ConnectException("Plugin metrics call " + method.getName() + " is not accessible", e);
        }
    }
}
