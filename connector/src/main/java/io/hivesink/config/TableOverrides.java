package io.hivesink.config;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.config.ConfigException;

/**
 * Per-table overrides: {@code table.<name>.<key>} sets {@code <key>} for table {@code <name>} only, for the keys in
 * {@link #OVERRIDABLE}; {@code table.<name>.location} sets the directory of a table the connector creates.
 */
public final class TableOverrides {

    public static final String PREFIX = "table.";
    public static final String LOCATION = "location";
    /** The keys a table may set for itself. */
    public static final List<String> OVERRIDABLE = TableConfig.KEYS;

    private final Map<String, String> originals;
    private final Map<String, Map<String, String>> overrides;
    private final Map<String, TableConfig> configs = new ConcurrentHashMap<>();

    private TableOverrides(Map<String, String> originals, Map<String, Map<String, String>> overrides) {
        this.originals = originals;
        this.overrides = overrides;
    }

    public static TableOverrides of(Map<String, String> props) {
        Map<String, Map<String, String>> overrides = new HashMap<>();
        props.forEach((key, value) -> {
            String[] parts = split(key);
            if (parts != null) {
                overrides.computeIfAbsent(parts[0], t -> new HashMap<>()).put(parts[1], value);
            }
        });
        return new TableOverrides(Map.copyOf(props), overrides);
    }

    /** The connector's properties with the table's overrides in place of the keys they override. */
    public Map<String, String> settingsFor(String table) {
        Map<String, String> merged = new HashMap<>(originals);
        Map<String, String> own = overrides.getOrDefault(table, Map.of());
        own.forEach((key, value) -> {
            if (!key.equals(LOCATION)) {
                merged.put(key, value);
            }
        });
        return merged;
    }

    /** The table's own settings, read once. */
    public TableConfig configFor(String table) {
        return configs.computeIfAbsent(table, t -> TableConfig.of(settingsFor(t), location(t)));
    }

    /** The tables that set {@code key} for themselves. */
    public Set<String> tablesSetting(String key) {
        Set<String> tables = new TreeSet<>();
        overrides.forEach((table, own) -> {
            if (own.containsKey(key)) {
                tables.add(table);
            }
        });
        return tables;
    }

    /** The directory a created table gets, or null for the default under the warehouse. */
    public String location(String table) {
        return overrides.getOrDefault(table, Map.of()).get(LOCATION);
    }

    /** {table, key} of a per-table key, or null if {@code key} is not one. */
    private static String[] split(String key) {
        if (!key.startsWith(PREFIX)) {
            return null;
        }
        String rest = key.substring(PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0 || dot == rest.length() - 1) {
            return null; // a global key such as table.properties
        }
        return new String[] {rest.substring(0, dot).toLowerCase(Locale.ROOT), rest.substring(dot + 1)};
    }

    /** Problems with per-table keys: key to message. */
    static Map<String, String> problems(Map<String, String> props) {
        Map<String, String> problems = new LinkedHashMap<>();
        for (String key : props.keySet()) {
            String[] parts = split(key);
            if (parts == null) {
                continue;
            }
            if (!HiveSinkConfig.HIVE_IDENTIFIER.matcher(parts[0]).matches()) {
                problems.put(key, "'" + parts[0] + "' is not a Hive table name.");
            } else if (parts[1].equals(LOCATION)) {
                String location = props.get(key).trim();
                if (!location.startsWith("/") && !location.matches("[A-Za-z][A-Za-z0-9+.-]*://.+")) {
                    problems.put(key, "Give an absolute path or a URL, for example /data/warehouse/orders.");
                }
            } else if (!OVERRIDABLE.contains(parts[1])) {
                problems.put(key, "A table can override only " + String.join(", ", OVERRIDABLE) + " and set "
                        + LOCATION + "; '" + parts[1] + "' is none of them.");
            } else {
                try {
                    HiveSinkConfig.readKeys(Map.of(parts[1], props.get(key)), List.of(parts[1]));
                } catch (ConfigException e) {
                    problems.put(key, e.getMessage());
                }
            }
        }
        if (problems.isEmpty()) {
            TableOverrides settings = of(props);
            for (String table : settings.overrides.keySet()) {
                TableConfig config = settings.configFor(table);
                String levelProblem = AvroConfig.levelProblem(config.codecName(), config.codecLevel());
                if (levelProblem != null) {
                    String levelKey = PREFIX + table + "." + AvroConfig.AVRO_CODEC_LEVEL;
                    problems.put(props.containsKey(levelKey) ? levelKey
                            : PREFIX + table + "." + AvroConfig.AVRO_CODEC, levelProblem);
                }
            }
        }
        return problems;
    }
}
