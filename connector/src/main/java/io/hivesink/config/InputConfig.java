package io.hivesink.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The Input keys: what the record values are and, for Confluent-framed Avro, how to reach the schema registry.
 * Credentials stay {@link Password}s, so that printing this value never shows them.
 *
 * @param confluentAvro whether values are Avro framed by Confluent's serializer (else Connect data)
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record InputConfig(boolean confluentAvro, NullValues nullValues, List<String> registryUrls,
        Password registryBasicAuth, String registryTruststoreLocation, Password registryTruststorePassword,
        Duration registryRequestTimeout, int registryRetryAttempts, Duration registryRetryBackoff,
        Duration registryRetryBackoffMax) {

    /** What becomes of a record whose value is null (a tombstone): {@value #BEHAVIOR_ON_NULL_VALUES}. */
    public enum NullValues {
        /** A bad record, under Connect's errors.* settings: by default the task stops at it. */
        FAIL,
        /** Skipped without an error; each batch's log says how many. */
        IGNORE,
        /** A bad record that the configuration guarantees reaches a dead-letter queue or the error log. */
        DEAD_LETTER;

        String value() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    public static final String GROUP = "Input";
    public static final String INPUT_FORMAT = "input.format";
    public static final String BEHAVIOR_ON_NULL_VALUES = "behavior.on.null.values";
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

    static void define(ConfigDef def) {
        int order = 0;
        def.define(INPUT_FORMAT, Type.STRING, INPUT_CONNECT,
                ConfigDef.ValidString.in(INPUT_CONNECT, INPUT_CONFLUENT_AVRO), Importance.HIGH,
                "What the record values are. connect: Connect data from the worker's value converter (JsonConverter "
                        + "with schemas, Confluent's AvroConverter, ...); each value must be a Struct, encoded "
                        + "into Avro by the sink. confluent-avro: Avro records framed by Confluent's serializer "
                        + "(magic byte 0, 4-byte schema id, Avro binary), read with value.converter="
                        + BYTE_ARRAY_CONVERTER + "; the writer schema is fetched from " + SCHEMA_REGISTRY_URL
                        + " once per id and the datums are written into the files as they are, never decoded and "
                        + "encoded again (only the routing and partition fields are read).",
                GROUP, ++order, Width.SHORT, "Input format");
        def.define(BEHAVIOR_ON_NULL_VALUES, Type.STRING, NullValues.FAIL.value(),
                ConfigDef.ValidString.in(NullValues.FAIL.value(), NullValues.IGNORE.value(),
                        NullValues.DEAD_LETTER.value()), Importance.MEDIUM,
                "What becomes of a record whose value is null (a tombstone, such as a compacted topic's delete): a "
                        + "Hive table has no row for it. fail: a bad record like any other, under Connect's "
                        + "errors.* settings: the task stops at it (errors.tolerance=none, the default), or it goes "
                        + "to the dead-letter queue or error log (errors.tolerance=all), or, with neither, is "
                        + "skipped and logged at WARN. ignore: skipped without an error; each batch's log line says "
                        + "how many, and the offsets move past them. dead-letter: like fail, and the configuration "
                        + "must send bad records to errors.deadletterqueue.topic.name or the error log "
                        + "(errors.log.enable=true) with errors.tolerance=all, so that a tombstone never stops the "
                        + "task and is never merely skipped.",
                GROUP, ++order, Width.SHORT, "Null values (tombstones)");
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
                GROUP, ++order, Width.LONG, "Schema registry URLs");
        def.define(SCHEMA_REGISTRY_BASIC_AUTH, Type.PASSWORD, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "user:password for HTTP basic authentication with the schema registry; empty: none.",
                GROUP, ++order, Width.MEDIUM, "Registry credentials");
        def.define(SCHEMA_REGISTRY_TRUSTSTORE_LOCATION, Type.STRING, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Trust store (JKS or PKCS12) used to check an https registry's certificate; empty: the JVM's.",
                GROUP, ++order, Width.LONG, "Registry trust store");
        def.define(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Password of the trust store in " + SCHEMA_REGISTRY_TRUSTSTORE_LOCATION + ".",
                GROUP, ++order, Width.MEDIUM, "Registry trust store password");
        def.define(SCHEMA_REGISTRY_REQUEST_TIMEOUT_MS, Type.INT, 10_000, ConfigDef.Range.between(100, 600_000),
                Importance.LOW,
                "Timeout of one request to the schema registry (connecting and answering).",
                GROUP, ++order, Width.SHORT, "Registry timeout");
        def.define(SCHEMA_REGISTRY_RETRY_ATTEMPTS, Type.INT, 5, ConfigDef.Range.between(1, 100), Importance.LOW,
                "Attempts to fetch a schema (each trying every URL) before the task gives the records back to "
                        + "Connect, which delivers them again: an unreachable registry delays records, it never "
                        + "drops them. A registry that answers 'not found' is not retried: that record is bad.",
                GROUP, ++order, Width.SHORT, "Registry attempts");
        def.define(SCHEMA_REGISTRY_RETRY_BACKOFF_MS, Type.INT, 200, ConfigDef.Range.between(0, 600_000),
                Importance.LOW,
                "Wait before the second attempt to fetch a schema; doubled after each further attempt.",
                GROUP, ++order, Width.SHORT, "Registry backoff");
        def.define(SCHEMA_REGISTRY_RETRY_BACKOFF_MAX_MS, Type.INT, 10_000, ConfigDef.Range.between(0, 600_000),
                Importance.LOW,
                "Longest wait between two attempts to fetch a schema.",
                GROUP, ++order, Width.SHORT, "Registry max backoff");
    }

    static InputConfig from(AbstractConfig config) {
        return new InputConfig(INPUT_CONFLUENT_AVRO.equals(config.getString(INPUT_FORMAT)),
                NullValues.valueOf(config.getString(BEHAVIOR_ON_NULL_VALUES).toUpperCase(java.util.Locale.ROOT)
                        .replace('-', '_')),
                config.getList(SCHEMA_REGISTRY_URL).stream().map(String::trim).filter(u -> !u.isEmpty()).toList(),
                config.getPassword(SCHEMA_REGISTRY_BASIC_AUTH),
                config.getString(SCHEMA_REGISTRY_TRUSTSTORE_LOCATION).trim(),
                config.getPassword(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD),
                Duration.ofMillis(config.getInt(SCHEMA_REGISTRY_REQUEST_TIMEOUT_MS)),
                config.getInt(SCHEMA_REGISTRY_RETRY_ATTEMPTS),
                Duration.ofMillis(config.getInt(SCHEMA_REGISTRY_RETRY_BACKOFF_MS)),
                Duration.ofMillis(config.getInt(SCHEMA_REGISTRY_RETRY_BACKOFF_MAX_MS)));
    }

    /**
     * Problems of the input format against the registry URLs and the worker's value converter, and of the null-value
     * behaviour against Connect's errors.* settings: key to message.
     *
     * @param connectorProps the connector's properties as given ({@code value.converter} may be a class)
     */
    Map<String, String> problems(Map<String, ?> connectorProps) {
        Map<String, String> problems = new LinkedHashMap<>();
        if (nullValues == NullValues.DEAD_LETTER) {
            String deadLetterProblem = deadLetterProblem(connectorProps, BEHAVIOR_ON_NULL_VALUES + "=dead-letter",
                    "tombstones");
            if (deadLetterProblem != null) {
                problems.put(BEHAVIOR_ON_NULL_VALUES, deadLetterProblem);
            }
        }
        Object valueConverter = connectorProps.get("value.converter");
        String converterName = valueConverter instanceof Class<?> type ? type.getName()
                : valueConverter == null ? null : valueConverter.toString().trim();
        if (confluentAvro) {
            if (registryUrls.isEmpty()) {
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

    /**
     * Why the records a setting sends to the errant-record reporter would not reach a dead-letter queue or the error
     * log, or null if they would.
     *
     * @param setting the setting, as {@code key=value}
     * @param what    what it sends there, for the message
     */
    static String deadLetterProblem(Map<String, ?> props, String setting, String what) {
        String tolerance = String.valueOf(props.get("errors.tolerance")).trim();
        Object topic = props.get("errors.deadletterqueue.topic.name");
        boolean deadLetterTopic = topic != null && !topic.toString().isBlank();
        boolean errorLog = "true".equalsIgnoreCase(String.valueOf(props.get("errors.log.enable")).trim());
        if (!"all".equalsIgnoreCase(tolerance)) {
            return setting + " needs errors.tolerance=all: with errors.tolerance=none Connect stops the task at "
                    + "the first record it reports.";
        }
        if (!deadLetterTopic && !errorLog) {
            return setting + " needs somewhere to send " + what + ": set errors.deadletterqueue.topic.name, or "
                    + "errors.log.enable=true.";
        }
        return null;
    }

    private static void registryUrl(String url) {
        java.net.URI uri = java.net.URI.create(url);
        if ((!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException("'" + url + "' is not an http or https URL.");
        }
    }
}
