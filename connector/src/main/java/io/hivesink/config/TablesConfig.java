package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Tables keys: the database, how a record is routed to its table, what a created table gets, and the ledger.
 *
 * @param tableMap         topic to table, for the topics named in {@code hive.table.map}
 * @param routeTopicRegex  the pattern topics must match, or null
 * @param routeField       the field whose value names the table, or null when routing by topic
 * @param schemaEvolution  whether compatible schema changes evolve the table
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record TablesConfig(String database, Map<String, String> tableMap, Pattern routeTopicRegex, String routeField,
        String routeTableTemplate, Map<String, String> tableProperties, boolean schemaEvolution, String ledgerTable,
        String stateDatabase) {

    public static final String GROUP = "Tables";
    public static final String DATABASE = "hive.database";
    public static final String TABLE_MAP = "hive.table.map";
    public static final String ROUTE_TOPIC_REGEX = "route.topic.regex";
    public static final String ROUTE_FIELD = "route.field";
    public static final String ROUTE_TABLE_TEMPLATE = "route.table.template";
    public static final String TABLE_PROPERTIES = "table.properties";
    public static final String SCHEMA_EVOLUTION = "schema.evolution";
    public static final String FORMAT = "format";
    public static final String LEDGER_TABLE = "ledger.table";
    public static final String STATE_DATABASE = "state.database";

    public static final String EVOLUTION_COMPATIBLE = "compatible";
    public static final String EVOLUTION_NONE = "none";

    public static final String FORMAT_AVRO = "avro";
    public static final String FORMAT_PARQUET = "parquet";
    public static final String FORMAT_ORC = "orc";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(DATABASE, Type.STRING, "default", Validators.hiveIdentifier(), Importance.HIGH,
                "Hive database the tables are created in; created if missing.",
                GROUP, ++order, Width.MEDIUM, "Database");
        def.define(TABLE_MAP, Type.LIST, "", Validators.tableMap(), Importance.MEDIUM,
                "Explicit table names per topic, as topic:table pairs, comma-separated, for example "
                        + "orders.v1:orders,customers:dim_customer. Several topics may name one table. A topic not "
                        + "listed lands in the table that route.table.template names (by default the topic made "
                        + "Hive-safe: lower case, every character other than a letter, digit or underscore "
                        + "replaced by an underscore, so orders.v1 lands in orders_v1). Ignored when routing by "
                        + "field.",
                GROUP, ++order, Width.LONG, "Table per topic");
        def.define(ROUTE_TOPIC_REGEX, Type.STRING, "",
                Validators.parsedBy("a Java regular expression, or empty", Pattern::compile,
                        "Not a Java regular expression: "),
                Importance.MEDIUM,
                "A Java regular expression the whole topic name must match; route.table.template can use its "
                        + "groups as ${1}, ${2}, ... For example prod\\.sales\\.(.+)\\.v\\d+ with the template "
                        + "sales_${1} lands topic prod.sales.orders.v2 in table sales_orders. A record of a topic "
                        + "that does not match is a bad record. Empty: no pattern.",
                GROUP, ++order, Width.LONG, "Topic pattern");
        def.define(ROUTE_FIELD, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Route by a field instead of by topic: the value of this top-level record field (a string, "
                        + "number or boolean) names the table, through route.table.template, so one topic fans "
                        + "out to many tables within one batch. A record whose field is null or empty is a bad "
                        + "record. Empty: route by topic.",
                GROUP, ++order, Width.MEDIUM, "Route field");
        def.define(ROUTE_TABLE_TEMPLATE, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "The table name, with ${topic} (the record's topic), ${field} (the value of route.field) and "
                        + "${1}, ${2}, ... (groups of route.topic.regex) filled in, then made Hive-safe. For "
                        + "example events_${field}, or ${1}_raw. Empty: ${topic} when routing by topic, ${field} "
                        + "when routing by field.",
                GROUP, ++order, Width.LONG, "Table name template");
        def.define(TABLE_PROPERTIES, Type.LIST, "", Validators.tableProperties(), Importance.LOW,
                "Table properties given to every table the connector creates, as key=value pairs, "
                        + "comma-separated, for example owner.team=payments,retention.days=30. Existing tables "
                        + "are not changed.",
                GROUP, ++order, Width.LONG, "Table properties");
        def.define(SCHEMA_EVOLUTION, Type.STRING, EVOLUTION_COMPATIBLE,
                ConfigDef.ValidString.in(EVOLUTION_COMPATIBLE, EVOLUTION_NONE), Importance.MEDIUM,
                "What happens when records arrive whose schema the table cannot read yet. compatible: the table "
                        + "and all its partitions are altered (ALTER TABLE ... CASCADE) when the change keeps old "
                        + "files readable: a new optional field or a field with a default (added as the last "
                        + "column), a wider number (int to bigint, float or double; bigint to float or double; "
                        + "float to double), a required field that becomes optional or disappears (the column "
                        + "becomes nullable), new enum symbols; also inside nested records, arrays and maps. "
                        + "Schemas are compared by structure, so data without schema versions (JsonConverter) "
                        + "evolves too. Records that need any other change are bad records, with an error that "
                        + "names the column. none: records must fit the table as it is.",
                GROUP, ++order, Width.SHORT, "Schema evolution");
        def.define(FORMAT, Type.STRING, FORMAT_AVRO, ConfigDef.CaseInsensitiveValidString.in(FORMAT_AVRO,
                FORMAT_PARQUET, FORMAT_ORC), Importance.MEDIUM,
                "File format of the tables the connector creates, for every table or one "
                        + "(table.<name>.format). avro: Avro container files (AvroSerDe); every column is read for "
                        + "every query, the fastest to write, and the schema travels in each file. parquet: Parquet "
                        + "files (ParquetHiveSerDe), columnar, so a query reads only the columns it names: pick it "
                        + "for wide tables that queries read a few columns of; Hive, Spark and Trino read it. orc: "
                        + "ORC files (OrcSerde), columnar like Parquet and Hive's own format, with the same "
                        + "readers. A "
                        + "table's format is fixed when it is created: a table that exists in another format is "
                        + "refused, naming both.",
                GROUP, ++order, Width.SHORT, "File format");
        def.define(LEDGER_TABLE, Type.STRING, "hive_sink_ledger", Validators.hiveIdentifier(), Importance.MEDIUM,
                "Table in hive.database that records every committed batch: one row per batch, table and "
                        + "partition, with the record count, the Kafka offsets and timestamps it covers, in a "
                        + "partition per batch (batch_id) that appears only once the batch is committed. "
                        + "Downstream jobs read it to know which batches have fully landed. Created if missing; "
                        + "connectors writing to one database may share it.",
                GROUP, ++order, Width.MEDIUM, "Ledger table");
        def.define(STATE_DATABASE, Type.STRING, "hive_sink", Validators.hiveIdentifier(), Importance.LOW,
                "Hive database of the connector's own tables: one per task, hive_sink_state_<connector>_<task>, "
                        + "holding the Kafka offsets it committed and its fencing state, so that hive.database "
                        + "holds only the landed tables and the ledger. Created if missing (or create it "
                        + "beforehand where the connector's user may not); every connector of a metastore may "
                        + "share it. A connector whose state is already in hive.database (as it was before this "
                        + "key existed) keeps it there and says so in its log, with how to move it.",
                GROUP, ++order, Width.MEDIUM, "State database");
    }

    static TablesConfig from(AbstractConfig config) {
        String regex = config.getString(ROUTE_TOPIC_REGEX).trim();
        String field = config.getString(ROUTE_FIELD).trim();
        String template = config.getString(ROUTE_TABLE_TEMPLATE).trim();
        if (template.isEmpty()) {
            template = field.isEmpty() ? "${topic}" : "${field}";
        }
        return new TablesConfig(config.getString(DATABASE).toLowerCase(Locale.ROOT),
                parseTableMap(config.getList(TABLE_MAP)), regex.isEmpty() ? null : Pattern.compile(regex),
                field.isEmpty() ? null : field, template, tableProperties(config), schemaEvolution(config),
                config.getString(LEDGER_TABLE).toLowerCase(Locale.ROOT),
                config.getString(STATE_DATABASE).toLowerCase(Locale.ROOT));
    }

    static Map<String, String> tableProperties(AbstractConfig config) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String entry : config.getList(TABLE_PROPERTIES)) {
            int eq = entry.indexOf('=');
            properties.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        return properties;
    }

    static String format(AbstractConfig config) {
        return config.getString(FORMAT).trim().toLowerCase(Locale.ROOT);
    }

    static boolean schemaEvolution(AbstractConfig config) {
        return EVOLUTION_COMPATIBLE.equals(config.getString(SCHEMA_EVOLUTION));
    }

    /** Problems that involve more than one of these keys: key to message. */
    Map<String, String> problems() {
        Map<String, String> problems = new LinkedHashMap<>();
        if (routeTopicRegex != null && routeField != null) {
            problems.put(ROUTE_TOPIC_REGEX, ROUTE_TOPIC_REGEX + " applies when routing by topic; remove it, or "
                    + "remove " + ROUTE_FIELD + ".");
        }
        if (tableMap.containsValue(ledgerTable)) {
            problems.put(TABLE_MAP, "Topics cannot land in the ledger table " + ledgerTable
                    + "; map them to another table or change " + LEDGER_TABLE + ".");
        }
        return problems;
    }

    static Map<String, String> parseTableMap(List<String> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String entry : entries) {
            int colon = entry.lastIndexOf(':');
            map.put(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim().toLowerCase(Locale.ROOT));
        }
        return map;
    }
}
