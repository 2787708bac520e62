package io.hivesink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

import io.hivesink.config.HiveSinkConfig;

/** Lands Kafka topics in Hive tables: Avro files on a Hadoop FileSystem, registered in the Hive metastore. */
public class HiveSinkConnector extends SinkConnector {

    private Map<String, String> props;

    @Override
    public String version() {
        return pluginVersion();
    }

    /** The plugin's version, from the jar manifest the build writes; the task reports it too. */
    static String pluginVersion() {
        String version = HiveSinkConnector.class.getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }

    @Override
    public void start(Map<String, String> props) {
        HiveSinkConfig.parse(props); // fail the connector, not only its tasks, on a bad config
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return HiveSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> task = new HashMap<>(props);
            task.put(HiveSinkConfig.TASK_ID, Integer.toString(i));
            task.put(HiveSinkConfig.TASK_COUNT, Integer.toString(maxTasks));
            configs.add(task);
        }
        return configs;
    }

    @Override
    public void stop() {
        props = null;
    }

    @Override
    public ConfigDef config() {
        return HiveSinkConfig.CONFIG_DEF;
    }

    /** Per-key checks from the ConfigDef, plus the checks that involve several keys, reported on the key at fault. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        boolean keyErrors = config.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty());
        if (keyErrors) {
            return config;
        }
        Map<String, String> problems;
        try {
            problems = HiveSinkConfig.parseKeys(connectorConfigs).crossKeyProblems();
        } catch (org.apache.kafka.common.config.ConfigException e) {
            return config; // already reported per key
        }
        Map<String, String> unplaced = new java.util.LinkedHashMap<>(problems);
        for (ConfigValue value : config.configValues()) {
            String problem = unplaced.remove(value.name());
            if (problem != null) {
                value.addErrorMessage(problem);
            }
        }
        // per-table keys (table.<name>.<key>) are not in the ConfigDef: report them as values of their own
        unplaced.forEach((key, problem) -> config.configValues().add(new ConfigValue(key, connectorConfigs.get(key),
                java.util.List.of(), java.util.List.of(problem))));
        return config;
    }
}
