package io.hivesink.route;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.config.TablesConfig;

/**
 * Picks the Hive table of each record. By topic: the explicit {@code hive.table.map} entry, else the table template
 * filled from the topic (and the groups of {@code route.topic.regex}). By field: the template filled from the value of
 * {@code route.field}, so that one topic fans out to many tables. Every name is made Hive-safe. Thread-safe.
 */
public final class TableRouter {

    private static final int MAX_NAME_LENGTH = 128;
    private static final int MAX_CACHED = 10_000;
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_]+)}");

    private final Map<String, String> explicit;
    private final Pattern topicRegex;
    private final String routeField;
    private final String template;
    private final Set<String> reserved;
    private final Map<String, String> byTopic = new ConcurrentHashMap<>();
    private final Map<String, String> byFieldValue = new ConcurrentHashMap<>();

    /**
     * @param topicRegex  null, or the pattern whose groups the template may use
     * @param routeField  null to route by topic, else the top-level field whose value names the table
     * @param template    the table name, with ${topic}, ${field} and ${n} (regex groups) filled in
     * @param reserved    table names records may not land in (the ledger)
     */
    public TableRouter(Map<String, String> topicToTable, Pattern topicRegex, String routeField, String template,
            Set<String> reserved) {
        this.explicit = Map.copyOf(topicToTable);
        this.topicRegex = topicRegex;
        this.routeField = routeField;
        this.template = template;
        this.reserved = Set.copyOf(reserved);
    }

    public static TableRouter fromConfig(TablesConfig config) {
        return new TableRouter(config.tableMap(), config.routeTopicRegex(), config.routeField(),
                config.routeTableTemplate(), Set.of(config.ledgerTable(), "hive_sink_compactions"));
    }

    /** True if every record of a topic lands in one table, so that callers may cache the table per topic. */
    public boolean routesByTopic() {
        return routeField == null;
    }

    /**
     * The table a record goes to.
     *
     * @throws DataException if the record cannot be routed, saying why
     */
    public String tableFor(SinkRecord record, Struct value) {
        if (routeField == null) {
            return tableFor(record.topic());
        }
        Field field = value.schema().field(routeField);
        if (field == null) {
            throw new DataException("The record has no field '" + routeField + "' to route by (fields: "
                    + value.schema().fields().stream().map(Field::name).toList() + "). Fix "
                    + TablesConfig.ROUTE_FIELD + " or the records.");
        }
        if (field.schema().type() == Schema.Type.STRUCT || field.schema().type() == Schema.Type.ARRAY
                || field.schema().type() == Schema.Type.MAP || field.schema().type() == Schema.Type.BYTES) {
            throw new DataException("Route field '" + routeField + "' is a " + field.schema().type()
                    + "; it must hold a string, number or boolean that names the table.");
        }
        Object fieldValue = value.get(field);
        if (fieldValue == null || fieldValue.toString().isEmpty()) {
            throw new DataException("Route field '" + routeField + "' is null or empty, so the record has no table. "
                    + "Give every record a value, or filter such records out before the sink.");
        }
        String text = fieldValue.toString();
        String key = record.topic() + '\u0000' + text;
        String cached = byFieldValue.get(key);
        if (cached != null) {
            return cached;
        }
        String table = checked(fill(record.topic(), null, text));
        if (byFieldValue.size() < MAX_CACHED) {
            byFieldValue.put(key, table);
        }
        return table;
    }

    /** The table of a topic when routing by topic. */
    public String tableFor(String topic) {
        String cached = byTopic.get(topic);
        if (cached != null) {
            return cached;
        }
        String table = explicit.get(topic);
        if (table == null) {
            Matcher groups = null;
            if (topicRegex != null) {
                groups = topicRegex.matcher(topic);
                if (!groups.matches()) {
                    throw new DataException("Topic '" + topic + "' does not match " + TablesConfig.ROUTE_TOPIC_REGEX
                            + " (" + topicRegex.pattern() + "), so its table cannot be named. Widen the pattern, or "
                            + "map the topic in " + TablesConfig.TABLE_MAP + ".");
                }
            }
            table = fill(topic, groups, null);
        }
        table = checked(table);
        byTopic.put(topic, table);
        return table;
    }

    private String fill(String topic, Matcher groups, String fieldValue) {
        Matcher variables = VARIABLE.matcher(template);
        StringBuilder name = new StringBuilder();
        while (variables.find()) {
            String variable = variables.group(1);
            String replacement;
            if (variable.equals("topic")) {
                replacement = topic;
            } else if (variable.equals("field")) {
                replacement = fieldValue == null ? "" : fieldValue;
            } else if (groups != null && variable.chars().allMatch(Character::isDigit)
                    && Integer.parseInt(variable) <= groups.groupCount()) {
                String group = groups.group(Integer.parseInt(variable));
                replacement = group == null ? "" : group;
            } else {
                replacement = "";
            }
            variables.appendReplacement(name, Matcher.quoteReplacement(replacement));
        }
        variables.appendTail(name);
        if (name.toString().isBlank()) {
            throw new DataException("The table name template '" + template + "' gives an empty name for topic '"
                    + topic + "'" + (fieldValue != null ? " and value '" + fieldValue + "'" : "") + ". Fix "
                    + TablesConfig.ROUTE_TABLE_TEMPLATE + ".");
        }
        return hiveSafeName(name.toString());
    }

    private String checked(String table) {
        if (reserved.contains(table)) {
            throw new DataException("The record would land in table '" + table + "', which the connector keeps "
                    + "for itself (" + TablesConfig.LEDGER_TABLE + "). Route it elsewhere.");
        }
        return table;
    }

    /**
     * Lower case, with every character other than a letter, digit or underscore replaced by an underscore, prefixed
     * with an underscore if it starts with a digit, and cut to Hive's 128 characters.
     */
    public static String hiveSafeName(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
            out.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        if (out.length() == 0 || Character.isDigit(out.charAt(0))) {
            out.insert(0, '_');
        }
        return out.length() > MAX_NAME_LENGTH ? out.substring(0, MAX_NAME_LENGTH) : out.toString();
    }
}
