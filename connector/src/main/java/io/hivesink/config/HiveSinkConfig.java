package io.hivesink.config;

import java.util.Collections;
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
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The connector's one configuration definition. Every key is documented here; {@code docs/configuration.md} is
 * generated from this class by {@link ConfigReference} and checked against it by a test.
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public final class HiveSinkConfig extends AbstractConfig {

    /** Set by the connector in each task's configuration (not a user setting): which task this is. */
    public static final String TASK_ID = "hive-sink.task.id";

    public static final String GROUP_STORAGE = "Storage";
    public static final String GROUP_METASTORE = "Hive metastore";
    public static final String GROUP_INPUT = "Input";
    public static final String GROUP_TABLES = "Tables";
    public static final String GROUP_PARTITIONING = "Partitioning";
    public static final String GROUP_BATCH = "Batching";
    public static final String GROUP_AVRO = "Avro files";

    public static final String FS_URL = "fs.url";
    public static final String HADOOP_CONF_DIR = "hadoop.conf.dir";
    public static final String WAREHOUSE_DIR = "warehouse.dir";
    public static final String STAGING_DIR = "staging.dir";

    public static final String METASTORE_URIS = "hive.metastore.uris";
    public static final String METASTORE_SSL_ENABLED = "hive.metastore.ssl.enabled";
    public static final String METASTORE_SSL_TRUSTSTORE_PATH = "hive.metastore.ssl.truststore.path";
    public static final String METASTORE_SSL_TRUSTSTORE_PASSWORD = "hive.metastore.ssl.truststore.password";
    public static final String METASTORE_FENCING = "hive.metastore.fencing";

    public static final String INPUT_FORMAT = "input.format";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String SCHEMA_REGISTRY_BASIC_AUTH = "schema.registry.basic.auth.user.info";
    public static final String SCHEMA_REGISTRY_TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
    public static final String SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
    public static final String SCHEMA_REGISTRY_REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";
    public static final String SCHEMA_REGISTRY_RETRY_ATTEMPTS = "schema.registry.retry.attempts";
    public static final String SCHEMA_REGISTRY_RETRY_BACKOFF_MS = "schema.registry.retry.backoff.ms";
    public static final String SCHEMA_REGISTRY_RETRY_BACKOFF_MAX_MS = "schema.registry.retry.backoff.max.ms";

    public static final String INPUT_CONNECT = "connect";
    public static final String INPUT_CONFLUENT_AVRO = "confluent-avro";
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    public static final String DATABASE = "hive.database";
    public static final String TABLE_MAP = "hive.table.map";
    public static final String ROUTE_TOPIC_REGEX = "route.topic.regex";
    public static final String ROUTE_FIELD = "route.field";
    public static final String ROUTE_TABLE_TEMPLATE = "route.table.template";
    public static final String TABLE_PROPERTIES = "table.properties";
    public static final String SCHEMA_EVOLUTION = "schema.evolution";
    public static final String LEDGER_TABLE = "ledger.table";

    public static final String PARTITIONER = "partitioner";
    public static final String PARTITION_FIELDS = "partition.fields";
    public static final String PARTITION_TIME_FIELD = "partition.time.field";
    public static final String PARTITION_TIME_FIELD_FORMAT = "partition.time.field.format";
    public static final String PARTITION_TIME_FIELD_UNIT = "partition.time.field.unit";
    public static final String PARTITION_TIME_PATTERN = "partition.time.pattern";
    public static final String PARTITION_TIME_ZONE = "partition.time.zone";

    public static final String EVOLUTION_COMPATIBLE = "compatible";
    public static final String EVOLUTION_NONE = "none";

    public static final String BATCH_MAX_RECORDS = "batch.max.records";
    public static final String BATCH_MAX_BYTES = "batch.max.bytes";
    public static final String BATCH_MAX_INTERVAL_MS = "batch.max.interval.ms";

    public static final String AVRO_CODEC = "avro.codec";
    public static final String AVRO_CODEC_LEVEL = "avro.codec.level";
    public static final String AVRO_SYNC_INTERVAL_BYTES = "avro.sync.interval.bytes";
    public static final String WRITER_THREADS = "writer.threads";

    /** Hive identifiers: what a database, table or column name may hold without quoting. */
    public static final Pattern HIVE_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private static final ConfigDef.Validator BOOLEAN = ConfigDef.LambdaValidator.with((name, value) -> {
        if (!(value instanceof Boolean)) {
            throw new ConfigException(name, value, "Give true or false.");
        }
    }, () -> "true or false");

    public static final ConfigDef CONFIG_DEF = define();

    /** Checks a value by parsing its trimmed text; a parse failure is the error message. */
    private HiveSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    /** Parses the properties, checking each key alone; see {@link #crossKeyProblems()} for the rest. */
    public static HiveSinkConfig parseKeys(Map<String, String> props) {
        return new HiveSinkConfig(props);
    }

    /**
     * Parses and checks the properties; cross-key problems are reported as a {@link ConfigException} naming the key.
     */
    public static HiveSinkConfig parse(Map<String, String> props) {
        HiveSinkConfig config = new HiveSinkConfig(props);
        Map<String, String> problems = config.crossKeyProblems();
        if (!problems.isEmpty()) {
            Map.Entry<String, String> first = problems.entrySet().iterator().next();
            throw new ConfigException(first.getKey(), config.originals().get(first.getKey()), first.getValue());
        }
        return config;
    }

    private static ConfigDef define() {
        ConfigDef def = new ConfigDef();
        int order = 0;

        def.define(FS_URL, Type.STRING, "", Validators.fileSystemUrl(), Importance.HIGH,
                "URL of the Hadoop FileSystem the tables live on, for example hdfs://namenode:8020, "
                        + "hdfs://nameservice (HA, with hadoop.conf.dir) or file:///data. Any Hadoop FileSystem "
                        + "scheme on the plugin's classpath works. Empty: fs.defaultFS from hadoop.conf.dir.",
                GROUP_STORAGE, ++order, Width.LONG, "FileSystem URL");
        def.define(HADOOP_CONF_DIR, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Directory holding core-site.xml and hdfs-site.xml, read when the task starts. Empty: Hadoop "
                        + "defaults plus whatever site files are on the plugin's classpath.",
                GROUP_STORAGE, ++order, Width.LONG, "Hadoop conf dir");
        def.define(WAREHOUSE_DIR, Type.STRING, "/warehouse/hive-sink", Validators.absolutePath(false), Importance.HIGH,
                "Root directory of the tables this connector creates: table t of database d lives in "
                        + "<warehouse.dir>/<d>.db/<t>. Must not be under the metastore's managed warehouse "
                        + "(metastore.warehouse.dir), because the tables are external.",
                GROUP_STORAGE, ++order, Width.LONG, "Warehouse dir");
        def.define(STAGING_DIR, Type.STRING, "", Validators.absolutePath(true), Importance.LOW,
                "Directory where files are written before they are moved into their table; no Hive table reads "
                        + "it. Must be on the same FileSystem as warehouse.dir so that the move is a rename. "
                        + "Empty: <warehouse.dir>/.hive-sink-staging.",
                GROUP_STORAGE, ++order, Width.LONG, "Staging dir");

        order = 0;
        def.define(METASTORE_URIS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, Validators.metastoreUris(),
                Importance.HIGH,
                "Thrift URIs of the Hive metastore (release 2.3, 3.1 or 4.0), comma-separated, for example "
                        + "thrift://metastore:9083. A task connects to the first that answers and, when its "
                        + "connection breaks, to the next.",
                GROUP_METASTORE, ++order, Width.LONG, "Metastore URIs");
        def.define(METASTORE_SSL_ENABLED, Type.BOOLEAN, false, BOOLEAN, Importance.LOW,
                "Talk TLS to the metastore (the server has metastore.use.SSL=true).",
                GROUP_METASTORE, ++order, Width.SHORT, "Metastore TLS");
        def.define(METASTORE_SSL_TRUSTSTORE_PATH, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.LOW,
                "Trust store (JKS or PKCS12) used to check the metastore's TLS certificate.",
                GROUP_METASTORE, ++order, Width.LONG, "Metastore trust store");
        def.define(METASTORE_SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Password of the trust store in hive.metastore.ssl.truststore.path.",
                GROUP_METASTORE, ++order, Width.MEDIUM, "Metastore trust store password");
        def.define(METASTORE_FENCING, Type.STRING, "auto",
                ConfigDef.ValidString.in("auto", "compare-and-set", "locks"), Importance.LOW,
                "How a task's commits are fenced against zombie tasks. compare-and-set: alter_table with an "
                        + "expected parameter value, which Hive metastores 4.x and 2.3.10 check. locks: an exclusive "
                        + "metastore lock around each write of a task's state, for metastores that accept the "
                        + "expected value but do not check it (3.x, 2.x before 2.3.10); needs the metastore's "
                        + "transaction tables, as schematool creates them. auto: compare-and-set if the metastore "
                        + "checks it (probed when the task starts), else locks. The task log says which is active.",
                GROUP_METASTORE, ++order, Width.SHORT, "Fencing");

        order = 0;
        def.define(INPUT_FORMAT, Type.STRING, INPUT_CONNECT,
                ConfigDef.ValidString.in(INPUT_CONNECT, INPUT_CONFLUENT_AVRO), Importance.HIGH,
                "What the record values are. connect: Connect data from the worker's value converter (JsonConverter "
                        + "with schemas, Confluent's AvroConverter, ...); each value must be a Struct, encoded "
                        + "into Avro by the sink. confluent-avro: Avro records framed by Confluent's serializer "
                        + "(magic byte 0, 4-byte schema id, Avro binary), read with value.converter="
                        + BYTE_ARRAY_CONVERTER + "; the writer schema is fetched from " + SCHEMA_REGISTRY_URL
                        + " once per id and the datums are written into the files as they are, never decoded and "
                        + "encoded again (only the routing and partition fields are read).",
                GROUP_INPUT, ++order, Width.SHORT, "Input format");
        def.define(SCHEMA_REGISTRY_URL, Type.LIST, "", ConfigDef.LambdaValidator.with((name, value) -> {
            for (Object url : (List<?>) value) {
                try {
                    registryUrl(url.toString().trim());
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, value, "Give the schema registry's base URLs, for example "
                            + "http://registry:8081. " + e.getMessage());
                }
            }
        }, () -> "http(s) URLs, comma-separated"), Importance.HIGH,
                "Base URLs of the schema registry (Confluent Schema Registry, or a registry speaking its REST API: "
                        + "Apicurio's ccompat API, Karapace, Redpanda), comma-separated, tried in order. Needed "
                        + "with " + INPUT_FORMAT + "=" + INPUT_CONFLUENT_AVRO + ".",
                GROUP_INPUT, ++order, Width.LONG, "Schema registry URLs");
        def.define(SCHEMA_REGISTRY_BASIC_AUTH, Type.PASSWORD, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "user:password for HTTP basic authentication with the schema registry; empty: none.",
                GROUP_INPUT, ++order, Width.MEDIUM, "Registry credentials");
        def.define(SCHEMA_REGISTRY_TRUSTSTORE_LOCATION, Type.STRING, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Trust store (JKS or PKCS12) used to check an https registry's certificate; empty: the JVM's.",
                GROUP_INPUT, ++order, Width.LONG, "Registry trust store");
        def.define(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Password of the trust store in " + SCHEMA_REGISTRY_TRUSTSTORE_LOCATION + ".",
                GROUP_INPUT, ++order, Width.MEDIUM, "Registry trust store password");
        def.define(SCHEMA_REGISTRY_REQUEST_TIMEOUT_MS, Type.INT, 10_000, ConfigDef.Range.between(100, 600_000),
                Importance.LOW,
                "Timeout of one request to the schema registry (connecting and answering).",
                GROUP_INPUT, ++order, Width.SHORT, "Registry timeout");
        def.define(SCHEMA_REGISTRY_RETRY_ATTEMPTS, Type.INT, 5, ConfigDef.Range.between(1, 100), Importance.LOW,
                "Attempts to fetch a schema (each trying every URL) before the task gives the records back to "
                        + "Connect, which delivers them again: an unreachable registry delays records, it never "
                        + "drops them. A registry that answers 'not found' is not retried: that record is bad.",
                GROUP_INPUT, ++order, Width.SHORT, "Registry attempts");
        def.define(SCHEMA_REGISTRY_RETRY_BACKOFF_MS, Type.INT, 200, ConfigDef.Range.between(0, 600_000),
                Importance.LOW,
                "Wait before the second attempt to fetch a schema; doubled after each further attempt.",
                GROUP_INPUT, ++order, Width.SHORT, "Registry backoff");
        def.define(SCHEMA_REGISTRY_RETRY_BACKOFF_MAX_MS, Type.INT, 10_000, ConfigDef.Range.between(0, 600_000),
                Importance.LOW,
                "Longest wait between two attempts to fetch a schema.",
                GROUP_INPUT, ++order, Width.SHORT, "Registry max backoff");

        order = 0;
        def.define(DATABASE, Type.STRING, "default", Validators.hiveIdentifier(), Importance.HIGH,
                "Hive database the tables are created in; created if missing.",
                GROUP_TABLES, ++order, Width.MEDIUM, "Database");
        def.define(TABLE_MAP, Type.LIST, "", Validators.tableMap(), Importance.MEDIUM,
                "Explicit table names per topic, as topic:table pairs, comma-separated, for example "
                        + "orders.v1:orders,customers:dim_customer. Several topics may name one table. A topic not "
                        + "listed lands in the table that route.table.template names (by default the topic made "
                        + "Hive-safe: lower case, every character other than a letter, digit or underscore "
                        + "replaced by an underscore, so orders.v1 lands in orders_v1). Ignored when routing by "
                        + "field.",
                GROUP_TABLES, ++order, Width.LONG, "Table per topic");
        def.define(ROUTE_TOPIC_REGEX, Type.STRING, "",
                Validators.parsedBy("a Java regular expression, or empty", Pattern::compile,
                        "Not a Java regular expression: "),
                Importance.MEDIUM,
                "A Java regular expression the whole topic name must match; route.table.template can use its "
                        + "groups as ${1}, ${2}, ... For example prod\\.sales\\.(.+)\\.v\\d+ with the template "
                        + "sales_${1} lands topic prod.sales.orders.v2 in table sales_orders. A record of a topic "
                        + "that does not match is a bad record. Empty: no pattern.",
                GROUP_TABLES, ++order, Width.LONG, "Topic pattern");
        def.define(ROUTE_FIELD, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Route by a field instead of by topic: the value of this top-level record field (a string, "
                        + "number or boolean) names the table, through route.table.template, so one topic fans "
                        + "out to many tables within one batch. A record whose field is null or empty is a bad "
                        + "record. Empty: route by topic.",
                GROUP_TABLES, ++order, Width.MEDIUM, "Route field");
        def.define(ROUTE_TABLE_TEMPLATE, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "The table name, with ${topic} (the record's topic), ${field} (the value of route.field) and "
                        + "${1}, ${2}, ... (groups of route.topic.regex) filled in, then made Hive-safe. For "
                        + "example events_${field}, or ${1}_raw. Empty: ${topic} when routing by topic, ${field} "
                        + "when routing by field.",
                GROUP_TABLES, ++order, Width.LONG, "Table name template");
        def.define(TABLE_PROPERTIES, Type.LIST, "", Validators.tableProperties(), Importance.LOW,
                "Table properties given to every table the connector creates, as key=value pairs, "
                        + "comma-separated, for example owner.team=payments,retention.days=30. Existing tables "
                        + "are not changed.",
                GROUP_TABLES, ++order, Width.LONG, "Table properties");
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
                GROUP_TABLES, ++order, Width.SHORT, "Schema evolution");
        def.define(LEDGER_TABLE, Type.STRING, "hive_sink_ledger", Validators.hiveIdentifier(), Importance.MEDIUM,
                "Table in hive.database that records every committed batch: one row per batch, table and "
                        + "partition, with the record count, the Kafka offsets and timestamps it covers, in a "
                        + "partition per batch (batch_id) that appears only once the batch is committed. "
                        + "Downstream jobs read it to know which batches have fully landed. Created if missing; "
                        + "connectors writing to one database may share it.",
                GROUP_TABLES, ++order, Width.MEDIUM, "Ledger table");

        order = 0;
        def.define(PARTITIONER, Type.LIST, "field", Validators.partitioners(), Importance.HIGH,
                "How tables are partitioned: one or more partitioners, whose columns follow one another in this "
                        + "order. field: by the values of partition.fields. time: by event time, as "
                        + "partition.time.pattern says. kafka: by the record's topic and Kafka partition (columns "
                        + "kafka_topic, kafka_partition). Or the full name of a class implementing "
                        + "io.hivesink.route.Partitioner, on the plugin's class path. For example time gives "
                        + "dt=2026-11-22, and time,field with partition.fields=country gives "
                        + "dt=2026-11-22/country=FR. A null or empty value lands in __HIVE_DEFAULT_PARTITION__; "
                        + "values are escaped in directory names as Hive escapes them.",
                GROUP_PARTITIONING, ++order, Width.LONG, "Partitioners");
        def.define(PARTITION_FIELDS, Type.LIST, "", Validators.partitionFields(), Importance.MEDIUM,
                "For the field partitioner: top-level record fields whose values partition the table, in "
                        + "order, for example country,day gives directories country=FR/day=2026-11-22. Each field "
                        + "must be a string, integer, boolean or Date; it becomes a partition column of the same "
                        + "name and is not stored in the data files (Hive does not allow a column to be both). "
                        + "Empty: the field partitioner adds no column (so by default tables are unpartitioned).",
                GROUP_PARTITIONING, ++order, Width.LONG, "Partition fields");
        def.define(PARTITION_TIME_PATTERN, Type.STRING, "dt=yyyy-MM-dd",
                Validators.parsedBy("column=format[/column=format...]",
                        text -> TimePattern.parse(text, java.time.ZoneOffset.UTC), ""),
                Importance.MEDIUM,
                "For the time partitioner: the partition columns and their formats, as column=format segments "
                        + "separated by slashes; each format is a java.time DateTimeFormatter pattern. For example "
                        + "dt=yyyy-MM-dd/hr=HH gives dt=2026-11-22/hr=05, and year=yyyy/month=MM/day=dd three "
                        + "columns. The columns are strings.",
                GROUP_PARTITIONING, ++order, Width.LONG, "Time pattern");
        def.define(PARTITION_TIME_ZONE, Type.STRING, "UTC",
                Validators.parsedBy("a time zone id, e.g. UTC or Europe/Paris", java.time.ZoneId::of,
                        "Not a time zone (give a region such as Europe/Paris, or UTC): "),
                Importance.MEDIUM,
                "For the time partitioner: the time zone the pattern is written in (and text times without a "
                        + "zone are read in), for example UTC or Europe/Paris.",
                GROUP_PARTITIONING, ++order, Width.MEDIUM, "Time zone");
        def.define(PARTITION_TIME_FIELD, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "For the time partitioner: the top-level field that holds the event time: a Connect Timestamp "
                        + "or Date, an int64 epoch (partition.time.field.unit), or a string "
                        + "(partition.time.field.format). A null time lands in __HIVE_DEFAULT_PARTITION__. Empty: "
                        + "the Kafka record's timestamp.",
                GROUP_PARTITIONING, ++order, Width.MEDIUM, "Time field");
        def.define(PARTITION_TIME_FIELD_UNIT, Type.STRING, "milliseconds",
                ConfigDef.ValidString.in("seconds", "milliseconds", "microseconds", "nanoseconds"),
                Importance.LOW,
                "For the time partitioner: the unit of an int64 time field since the epoch.",
                GROUP_PARTITIONING, ++order, Width.SHORT, "Time field unit");
        def.define(PARTITION_TIME_FIELD_FORMAT, Type.STRING, "",
                Validators.parsedBy("a DateTimeFormatter pattern, or empty for ISO-8601",
                        text -> java.time.format.DateTimeFormatter.ofPattern(text, Locale.ROOT),
                        "Not a DateTimeFormatter pattern: "),
                Importance.LOW,
                "For the time partitioner: the DateTimeFormatter pattern of a string time field, for example "
                        + "yyyy-MM-dd HH:mm:ss; a text without a zone is read in partition.time.zone. Empty: "
                        + "ISO-8601 (2026-11-22T05:30:00Z, 2026-11-22T05:30:00+01:00, 2026-11-22T05:30:00 or "
                        + "2026-11-22).",
                GROUP_PARTITIONING, ++order, Width.MEDIUM, "Time field format");

        order = 0;
        def.define(BATCH_MAX_RECORDS, Type.INT, 1_000_000, ConfigDef.Range.between(1, 50_000_000),
                Importance.HIGH,
                "A batch is written and committed once it holds this many records.",
                GROUP_BATCH, ++order, Width.SHORT, "Batch records");
        def.define(BATCH_MAX_BYTES, Type.LONG, 512L * 1024 * 1024,
                ConfigDef.Range.between(1024L, 64L * 1024 * 1024 * 1024), Importance.MEDIUM,
                "A batch is written and committed once its records take this many bytes, encoded as Avro and "
                        + "held in memory. Keep it well under the worker's heap.",
                GROUP_BATCH, ++order, Width.SHORT, "Batch bytes");
        def.define(BATCH_MAX_INTERVAL_MS, Type.LONG, 300_000L, ConfigDef.Range.between(100L, 24L * 3600 * 1000),
                Importance.MEDIUM,
                "A batch is written and committed at the latest this long after its first record arrived "
                        + "(checked as records arrive: while none come, the batch waits for the worker's next "
                        + "offset commit). Each offset commit of the worker (offset.flush.interval.ms, default 60 s) "
                        + "also ends the open batch: raise it to get bigger batches.",
                GROUP_BATCH, ++order, Width.SHORT, "Batch interval");

        order = 0;
        def.define(AVRO_CODEC, Type.STRING, "snappy", Validators.codec(), Importance.MEDIUM,
                "Compression codec of the Avro container files: " + String.join(", ", AvroCodecs.NAMES) + ".",
                GROUP_AVRO, ++order, Width.SHORT, "Codec");
        def.define(AVRO_CODEC_LEVEL, Type.INT, -1, ConfigDef.Range.between(-1, 22), Importance.LOW,
                "Compression level for deflate (1-9), zstandard (1-22) and xz (0-9); -1 takes the codec's "
                        + "default (deflate 6, zstandard 3, xz 6). Ignored by other codecs.",
                GROUP_AVRO, ++order, Width.SHORT, "Codec level");
        def.define(AVRO_SYNC_INTERVAL_BYTES, Type.INT, 1024 * 1024, ConfigDef.Range.between(32, 1 << 30),
                Importance.LOW,
                "Approximate size of an Avro block before compression: a sync marker is written after each.",
                GROUP_AVRO, ++order, Width.SHORT, "Block size");
        def.define(WRITER_THREADS, Type.INT, 0, ConfigDef.Range.between(0, 256), Importance.MEDIUM,
                "Threads per task that encode records (while they arrive) and compress blocks (when a batch is "
                        + "written); one pool per task. 0: as many as the worker has cores.",
                GROUP_AVRO, ++order, Width.SHORT, "Writer threads");
        return def;
    }

    /** Problems that involve more than one key, or that a single-key validator cannot see; key to message. */
    public Map<String, String> crossKeyProblems() {
        Map<String, String> problems = new LinkedHashMap<>();
        String codec = codecName();
        int level = codecLevel();
        if (level != -1) {
            String levelProblem = AvroCodecs.levelProblem(codec, level);
            if (levelProblem != null) {
                problems.put(AVRO_CODEC_LEVEL, levelProblem);
            }
        }
        if (metastoreSslEnabled() && getString(METASTORE_SSL_TRUSTSTORE_PATH).isBlank()) {
            problems.put(METASTORE_SSL_TRUSTSTORE_PATH,
                    "Set a trust store when " + METASTORE_SSL_ENABLED + "=true.");
        }
        if (!routeTopicRegexText().isEmpty() && routeField() != null) {
            problems.put(ROUTE_TOPIC_REGEX, ROUTE_TOPIC_REGEX + " applies when routing by topic; remove it, or "
                    + "remove " + ROUTE_FIELD + ".");
        }
        problems.putAll(inputProblems());
        problems.putAll(TableSettings.problems(originalsStrings()));
        if (tableMap().containsValue(ledgerTable())) {
            problems.put(TABLE_MAP, "Topics cannot land in the ledger table " + ledgerTable()
                    + "; map them to another table or change " + LEDGER_TABLE + ".");
        }
        return problems;
    }

    private Map<String, String> inputProblems() {
        Map<String, String> problems = new LinkedHashMap<>();
        Object converter = originals().get("value.converter");
        String converterName = converter instanceof Class<?> type ? type.getName()
                : converter == null ? null : converter.toString().trim();
        if (confluentAvroInput()) {
            if (schemaRegistryUrls().isEmpty()) {
                problems.put(SCHEMA_REGISTRY_URL, "Set the schema registry's URL when " + INPUT_FORMAT + "="
                        + INPUT_CONFLUENT_AVRO + ": the records' writer schemas are fetched from it.");
            }
            if (converterName != null && !converterName.equals(BYTE_ARRAY_CONVERTER)) {
                problems.put(INPUT_FORMAT, INPUT_FORMAT + "=" + INPUT_CONFLUENT_AVRO + " reads the serialized "
                        + "bytes, but value.converter is " + converterName + ". Set value.converter="
                        + BYTE_ARRAY_CONVERTER + ", or " + INPUT_FORMAT + "=" + INPUT_CONNECT + " to take the "
                        + "converter's Connect data.");
            }
        } else if (BYTE_ARRAY_CONVERTER.equals(converterName)) {
            problems.put(INPUT_FORMAT, "value.converter is ByteArrayConverter, which hands over raw bytes, not "
                    + "Connect data. If the bytes are Avro framed by Confluent's serializer, set " + INPUT_FORMAT
                    + "=" + INPUT_CONFLUENT_AVRO + "; otherwise use a converter that gives Structs.");
        }
        return problems;
    }

    private static void registryUrl(String url) {
        java.net.URI uri = java.net.URI.create(url);
        if ((!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException("'" + url + "' is not an http or https URL.");
        }
    }

    public boolean confluentAvroInput() {
        return INPUT_CONFLUENT_AVRO.equals(getString(INPUT_FORMAT));
    }

    public List<String> schemaRegistryUrls() {
        return getList(SCHEMA_REGISTRY_URL).stream().map(String::trim).filter(u -> !u.isEmpty()).toList();
    }

    public String schemaRegistryBasicAuth() {
        return getPassword(SCHEMA_REGISTRY_BASIC_AUTH).value();
    }

    public String schemaRegistryTruststoreLocation() {
        return getString(SCHEMA_REGISTRY_TRUSTSTORE_LOCATION).trim();
    }

    public String schemaRegistryTruststorePassword() {
        return getPassword(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD).value();
    }

    public java.time.Duration schemaRegistryRequestTimeout() {
        return java.time.Duration.ofMillis(getInt(SCHEMA_REGISTRY_REQUEST_TIMEOUT_MS));
    }

    public int schemaRegistryRetryAttempts() {
        return getInt(SCHEMA_REGISTRY_RETRY_ATTEMPTS);
    }

    public java.time.Duration schemaRegistryRetryBackoff() {
        return java.time.Duration.ofMillis(getInt(SCHEMA_REGISTRY_RETRY_BACKOFF_MS));
    }

    public java.time.Duration schemaRegistryRetryBackoffMax() {
        return java.time.Duration.ofMillis(getInt(SCHEMA_REGISTRY_RETRY_BACKOFF_MAX_MS));
    }

    public String fsUrl() {
        return getString(FS_URL).trim();
    }

    public String hadoopConfDir() {
        return getString(HADOOP_CONF_DIR).trim();
    }

    public String warehouseDir() {
        return trimTrailingSlash(getString(WAREHOUSE_DIR).trim());
    }

    public String stagingDir() {
        String staging = getString(STAGING_DIR).trim();
        return staging.isEmpty() ? warehouseDir() + "/.hive-sink-staging" : trimTrailingSlash(staging);
    }

    public List<String> metastoreUris() {
        return getList(METASTORE_URIS);
    }

    public boolean metastoreSslEnabled() {
        return getBoolean(METASTORE_SSL_ENABLED);
    }

    public String metastoreTruststorePath() {
        return getString(METASTORE_SSL_TRUSTSTORE_PATH);
    }

    public Password metastoreTruststorePassword() {
        return getPassword(METASTORE_SSL_TRUSTSTORE_PASSWORD);
    }

    /** auto, compare-and-set or locks. */
    public String fencing() {
        return getString(METASTORE_FENCING);
    }

    public String database() {
        return getString(DATABASE).toLowerCase(Locale.ROOT);
    }

    /** topic to table, for the topics named in {@link #TABLE_MAP}. */
    public Map<String, String> tableMap() {
        return parseTableMap(getList(TABLE_MAP));
    }

    /** The pattern topics must match, or null. */
    public Pattern routeTopicRegex() {
        String regex = routeTopicRegexText();
        return regex.isEmpty() ? null : Pattern.compile(regex);
    }

    private String routeTopicRegexText() {
        return getString(ROUTE_TOPIC_REGEX).trim();
    }

    /** The field whose value names the table, or null when routing by topic. */
    public String routeField() {
        String field = getString(ROUTE_FIELD).trim();
        return field.isEmpty() ? null : field;
    }

    public String routeTableTemplate() {
        String template = getString(ROUTE_TABLE_TEMPLATE).trim();
        if (!template.isEmpty()) {
            return template;
        }
        return routeField() == null ? "${topic}" : "${field}";
    }

    public Map<String, String> tableProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String entry : getList(TABLE_PROPERTIES)) {
            int eq = entry.indexOf('=');
            properties.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        return properties;
    }

    public boolean schemaEvolution() {
        return EVOLUTION_COMPATIBLE.equals(getString(SCHEMA_EVOLUTION));
    }

    public List<String> partitioners() {
        return getList(PARTITIONER).stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
    }

    public String partitionTimeField() {
        return getString(PARTITION_TIME_FIELD).trim();
    }

    public String partitionTimeFieldFormat() {
        return getString(PARTITION_TIME_FIELD_FORMAT).trim();
    }

    public java.util.concurrent.TimeUnit partitionTimeFieldUnit() {
        return java.util.concurrent.TimeUnit.valueOf(getString(PARTITION_TIME_FIELD_UNIT).toUpperCase(Locale.ROOT));
    }

    public String partitionTimePattern() {
        return getString(PARTITION_TIME_PATTERN).trim();
    }

    public java.time.ZoneId partitionTimeZone() {
        return java.time.ZoneId.of(getString(PARTITION_TIME_ZONE).trim());
    }

    public String ledgerTable() {
        return getString(LEDGER_TABLE).toLowerCase(Locale.ROOT);
    }

    public List<String> partitionFields() {
        return Collections.unmodifiableList(getList(PARTITION_FIELDS));
    }

    public int batchMaxRecords() {
        return getInt(BATCH_MAX_RECORDS);
    }

    public long batchMaxBytes() {
        return getLong(BATCH_MAX_BYTES);
    }

    public long batchMaxIntervalMs() {
        return getLong(BATCH_MAX_INTERVAL_MS);
    }

    public String codecName() {
        return getString(AVRO_CODEC).trim().toLowerCase(Locale.ROOT);
    }

    public int codecLevel() {
        return getInt(AVRO_CODEC_LEVEL);
    }

    /** The configured thread count, or the number of cores when it is 0. */
    public int writerThreads() {
        int threads = getInt(WRITER_THREADS);
        return threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
    }

    public int syncIntervalBytes() {
        return getInt(AVRO_SYNC_INTERVAL_BYTES);
    }

    static Map<String, String> parseTableMap(List<String> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String entry : entries) {
            int colon = entry.lastIndexOf(':');
            map.put(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim().toLowerCase(Locale.ROOT));
        }
        return map;
    }

    private static String trimTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
