package io.hivesink.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * Renders the configuration reference from {@link HiveSinkConfig#CONFIG_DEF}, so the docs are never written twice.
 * Run {@code main} with the output path to regenerate {@code docs/configuration.md}.
 */
public final class ConfigReference {

    private ConfigReference() {
    }

    public static String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration reference\n\n")
                .append("Generated from `HiveSinkConfig` by `ConfigReference`; do not edit by hand. ")
                .append("Regenerate with `./mvnw -q -pl connector compile exec:java`.\n");
        List<ConfigKey> keys = new ArrayList<>(HiveSinkConfig.CONFIG_DEF.configKeys().values());
        keys.sort(Comparator.comparingInt((ConfigKey k) -> HiveSinkConfig.CONFIG_DEF.groups().indexOf(k.group))
                .thenComparingInt(k -> k.orderInGroup));
        String group = null;
        for (ConfigKey key : keys) {
            if (!key.group.equals(group)) {
                group = key.group;
                out.append("\n## ").append(group).append("\n");
            }
            out.append("\n### `").append(key.name).append("`\n\n")
                    .append(key.documentation).append("\n\n")
                    .append("- Type: ").append(key.type.toString().toLowerCase(Locale.ROOT)).append('\n')
                    .append("- Default: ").append(defaultText(key)).append('\n');
            if (key.validator != null) {
                out.append("- Valid values: ").append(key.validator).append('\n');
            }
            out.append("- Importance: ").append(key.importance.toString().toLowerCase(Locale.ROOT)).append('\n');
        }
        out.append("\n## Per-table settings\n\n")
                .append("`").append(TableOverrides.PREFIX).append("<table>.<key>` sets one of these keys for one ")
                .append("table only, for example `table.payments.partitioner=kafka`: ");
        out.append(String.join(", ", TableOverrides.OVERRIDABLE.stream().map(k -> "`" + k + "`").toList()))
                .append(". `").append(TableOverrides.PREFIX).append("<table>.").append(TableOverrides.LOCATION)
                .append("` sets the directory of a table the connector creates (an absolute path on `fs.url`, or a ")
                .append("URL), for example `table.sales_orders.location=/data/sales/orders`. `<table>` is the ")
                .append("table's name as the connector routes to it (lower case).\n");
        return out.toString();
    }

    private static String defaultText(ConfigKey key) {
        if (!key.hasDefault()) {
            return "none (required)";
        }
        Object value = key.defaultValue;
        if (key.type == ConfigDef.Type.PASSWORD) {
            return "\"\"";
        }
        String text = value instanceof List<?> list ? String.join(",", list.stream().map(String::valueOf).toList())
                : String.valueOf(value);
        return text.isEmpty() ? "\"\"" : "`" + text + "`";
    }

    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.writeString(target, markdown(), StandardCharsets.UTF_8);
        System.out.println("Wrote " + target.toAbsolutePath());
    }
}
