package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/**
 * The Hive metastore keys: where the metastore is, how to talk to it and how commits are fenced. The trust store
 * password stays a {@link Password}, so that printing this value never shows it.
 *
 * @param fencing auto, compare-and-set or locks
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record MetastoreConfig(List<String> uris, boolean sslEnabled, String truststorePath,
        Password truststorePassword, String fencing) {

    public static final String GROUP = "Hive metastore";
    public static final String METASTORE_URIS = "hive.metastore.uris";
    public static final String METASTORE_SSL_ENABLED = "hive.metastore.ssl.enabled";
    public static final String METASTORE_SSL_TRUSTSTORE_PATH = "hive.metastore.ssl.truststore.path";
    public static final String METASTORE_SSL_TRUSTSTORE_PASSWORD = "hive.metastore.ssl.truststore.password";
    public static final String METASTORE_FENCING = "hive.metastore.fencing";

    private static final ConfigDef.Validator BOOLEAN = Validators.bool();

    static void define(ConfigDef def) {
        int order = 0;
        def.define(METASTORE_URIS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, Validators.metastoreUris(),
                Importance.HIGH,
                "Thrift URIs of the Hive metastore (release 2.3, 3.1 or 4.0), comma-separated, for example "
                        + "thrift://metastore:9083. A task connects to the first that answers and, when its "
                        + "connection breaks, to the next.",
                GROUP, ++order, Width.LONG, "Metastore URIs");
        def.define(METASTORE_SSL_ENABLED, Type.BOOLEAN, false, BOOLEAN, Importance.LOW,
                "Talk TLS to the metastore (the server has metastore.use.SSL=true).",
                GROUP, ++order, Width.SHORT, "Metastore TLS");
        def.define(METASTORE_SSL_TRUSTSTORE_PATH, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.LOW,
                "Trust store (JKS or PKCS12) used to check the metastore's TLS certificate.",
                GROUP, ++order, Width.LONG, "Metastore trust store");
        def.define(METASTORE_SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", new ConfigDef.NonNullValidator(),
                Importance.LOW,
                "Password of the trust store in hive.metastore.ssl.truststore.path.",
                GROUP, ++order, Width.MEDIUM, "Metastore trust store password");
        def.define(METASTORE_FENCING, Type.STRING, "auto",
                ConfigDef.ValidString.in("auto", "compare-and-set", "locks"), Importance.LOW,
                "How a task's commits are fenced against zombie tasks. compare-and-set: alter_table with an "
                        + "expected parameter value, which Hive metastores 4.x and 2.3.10 check. locks: an exclusive "
                        + "metastore lock around each write of a task's state, for metastores that accept the "
                        + "expected value but do not check it (3.x, 2.x before 2.3.10); needs the metastore's "
                        + "transaction tables, as schematool creates them. auto: compare-and-set if the metastore "
                        + "checks it (probed when the task starts), else locks. The task log says which is active.",
                GROUP, ++order, Width.SHORT, "Fencing");
    }

    static MetastoreConfig from(AbstractConfig config) {
        return new MetastoreConfig(config.getList(METASTORE_URIS), config.getBoolean(METASTORE_SSL_ENABLED),
                config.getString(METASTORE_SSL_TRUSTSTORE_PATH), config.getPassword(METASTORE_SSL_TRUSTSTORE_PASSWORD),
                config.getString(METASTORE_FENCING));
    }

    /** Problems that involve more than one of these keys: key to message. */
    Map<String, String> problems() {
        Map<String, String> problems = new LinkedHashMap<>();
        if (sslEnabled && truststorePath.isBlank()) {
            problems.put(METASTORE_SSL_TRUSTSTORE_PATH, "Set a trust store when " + METASTORE_SSL_ENABLED + "=true.");
        }
        return problems;
    }
}
