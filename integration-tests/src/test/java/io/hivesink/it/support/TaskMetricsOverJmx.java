package io.hivesink.it.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * A connector's task metrics as an operator's agent reads them from a worker over JMX: the MBeans
 * {@code kafka.connect:type=plugins,connector=<connector>,task=<n>}, and the per-table ones with a {@code table} key.
 */
public record TaskMetricsOverJmx(Map<String, Map<String, Double>> perTask, Map<String, Map<String, Double>> perTable) {

    public static TaskMetricsOverJmx read(ConnectWorkerProcess worker, String connector) throws Exception {
        MBeanServerConnection jmx = worker.jmx();
        Map<String, Map<String, Double>> perTask = new TreeMap<>();
        Map<String, Map<String, Double>> perTable = new TreeMap<>();
        String prefix = "kafka.connect:type=plugins,connector=" + connector;
        for (ObjectName name : jmx.queryNames(new ObjectName(prefix + ",task=*"), null)) {
            perTask.put(name.getKeyProperty("task"), attributes(jmx, name));
        }
        for (ObjectName name : jmx.queryNames(new ObjectName(prefix + ",task=*,table=*"), null)) {
            perTable.put(name.getKeyProperty("table") + "/" + name.getKeyProperty("task"), attributes(jmx, name));
        }
        return new TaskMetricsOverJmx(perTask, perTable);
    }

    private static Map<String, Double> attributes(MBeanServerConnection jmx, ObjectName name) throws Exception {
        Map<String, Double> values = new TreeMap<>();
        for (MBeanAttributeInfo attribute : jmx.getMBeanInfo(name).getAttributes()) {
            Object value = jmx.getAttribute(name, attribute.getName());
            if (value instanceof Number number) {
                values.put(attribute.getName(), number.doubleValue());
            }
        }
        return values;
    }

    public int tasks() {
        return perTask.size();
    }

    /** The metric summed over the tasks (0 for a task that lacks it). */
    public long sum(String metric) {
        return Math.round(perTask.values().stream().mapToDouble(m -> m.getOrDefault(metric, 0.0)).sum());
    }

    public double max(String metric) {
        return perTask.values().stream().mapToDouble(m -> m.getOrDefault(metric, 0.0)).max().orElse(0);
    }

    public double memoryBudgetBytes() {
        return max("memory-budget-bytes");
    }

    /** A per-table metric of the table, one value per task that has it. */
    public List<Double> perTask(String table, String metric) {
        List<Double> values = new ArrayList<>();
        perTable.forEach((key, metrics) -> {
            if (key.startsWith(table + "/") && metrics.containsKey(metric)) {
                values.add(metrics.get(metric));
            }
        });
        return values;
    }

    /** The table's end-to-end lag, the smallest over the tasks that committed to it (-1 if none did). */
    public double tableLag(String table) {
        return perTask(table, "end-to-end-lag-ms").stream().mapToDouble(Double::doubleValue).min().orElse(-1);
    }
}
