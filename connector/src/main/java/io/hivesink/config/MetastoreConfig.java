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
 * @param fencing           auto, compare-and-set or locks
 * @param saslEnabled       whether the metastore is talked to over SASL (Kerberos)
 * @param kerberosPrincipal the metastore's service principal, {@code _HOST} not yet expanded
 * @param startWaitMs how long a starting task waits for a metastore that does not answer
 * @param lockStaleMs fencing by locks, how long a lock on a task's state may show no sign of life before it is broken
 * @param foreignLockWaitMs fencing by locks, how long a starting task waits for a lock on its state that is not
 *     hive-sink's; -1 without end
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record MetastoreConfig(List<String> uris, boolean sslEnabled, String truststorePath,
        Password truststorePassword, String fencing, boolean saslEnabled, String kerberosPrincipal,
        long startWaitMs, long lockStaleMs, long foreignLockWaitMs) {

    public static final String GROUP = "Hive metastore";
    public static final String METASTORE_URIS = "hive.metastore.uris";
    public static final String METASTORE_SSL_ENABLED = "hive.metastore.ssl.enabled";
    public static final String METASTORE_SSL_TRUSTSTORE_PATH = "hive.metastore.ssl.truststore.path";
    public static final String METASTORE_SSL_TRUSTSTORE_PASSWORD = "hive.metastore.ssl.truststore.password";
    public static final String METASTORE_FENCING = "hive.metastore.fencing";
    public static final String METASTORE_SASL_ENABLED = "hive.metastore.sasl.enabled";
    public static final String METASTORE_KERBEROS_PRINCIPAL = "hive.metastore.kerberos.principal";
    public static final String METASTORE_START_WAIT_MS = "hive.metastore.start.wait.ms";
    public static final String METASTORE_LOCK_STALE_MS = "hive.metastore.lock.stale.ms";
    public static final String METASTORE_LOCK_FOREIGN_WAIT_MS = "hive.metastore.lock.foreign.wait.ms";

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
        def.define(METASTORE_SASL_ENABLED, Type.BOOLEAN, false, BOOLEAN, Importance.MEDIUM,
                "Talk SASL (Kerberos, GSSAPI) to the metastore, as a metastore with metastore.sasl.enabled=true "
                        + "requires; the task authenticates as " + KerberosConfig.PRINCIPAL + ". The quality of "
                        + "protection follows hadoop.rpc.protection of hadoop.conf.dir (authentication, integrity or "
                        + "privacy).",
                GROUP, ++order, Width.SHORT, "Metastore SASL");
        def.define(METASTORE_KERBEROS_PRINCIPAL, Type.STRING, "", new ConfigDef.NonNullValidator(),
                Importance.MEDIUM,
                "The metastore's own Kerberos principal (its metastore.kerberos.principal), for example "
                        + "hive/_HOST@EXAMPLE.COM; _HOST is the host of the metastore URI being connected to.",
                GROUP, ++order, Width.LONG, "Metastore principal");
        def.define(METASTORE_START_WAIT_MS, Type.LONG, 300_000L, ConfigDef.Range.between(0L, 24L * 3600 * 1000),
                Importance.LOW,
                "How long a starting task waits for a metastore that does not answer (down, restarting, "
                        + "unreachable), or for HDFS that cannot be written (down, restarting, in safe mode), and "
                        + "how long partitions assigned during such an outage wait to be claimed, before the task "
                        + "fails; it tries again with growing pauses (up to 30 s) and logs each try. Connect does "
                        + "not restart a failed task by itself, so a short outage during a deployment or rebalance "
                        + "should not fail it. A service that answers but refuses the task (permissions, SASL, TLS, "
                        + "release) fails it at once.",
                GROUP, ++order, Width.SHORT, "Metastore start wait");
        def.define(METASTORE_LOCK_STALE_MS, Type.LONG, 0L,
                Validators.zeroOrBetween(1_000L, 3_600_000L, "derived from the metastore"), Importance.LOW,
                "Where task states are fenced by metastore locks (" + METASTORE_FENCING + "=locks, or auto on Hive "
                        + "3.x): how long a lock on a task's state table may show no sign of life (no heartbeat, "
                        + "granted or waiting) while a task waits for it, before the task takes it for left behind "
                        + "(a worker stopped inside a locked write) and breaks it. Hive 3.1 and 4.0 metastores do "
                        + "not time such locks out unless their house-keeping runs, and keep them across restarts. "
                        + "It also sets the lock window: these locks carry no fencing token, so a write that "
                        + "reaches the metastore's database later than this after its heartbeat (a long GC pause, a "
                        + "slow network, the metastore retrying its database) can land after its lock was broken. A "
                        + "writer checks its lock after each write (after one whose answer was lost, it keeps the "
                        + "lock this long first) and stops the task if it was broken (docs/exactly-once.md lists "
                        + "what remains). 0, the default: three times the metastore's own retry budget "
                        + "(metastore.hmshandler.retry.attempts times metastore.hmshandler.retry.interval, read from "
                        + "the metastore when the task starts), from 60000 to 300000. A write waits for its lock up "
                        + "to three times this, or this and 20 s if less, before it fails and is tried again. An "
                        + "earlier instance's abandoned staged batch is removed only once seen for this long.",
                GROUP, ++order, Width.SHORT, "Stale lock time");
        def.define(METASTORE_LOCK_FOREIGN_WAIT_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(-1L),
                Importance.LOW,
                "Where task states are fenced by metastore locks: how long a starting task waits for a lock on "
                        + "its state table that is not hive-sink's (an operator's, a tool's, a query's: hive-sink "
                        + "never breaks those), before it fails saying who holds it and how to release it; -1 waits "
                        + "for as long as it takes. The task logs a WARN naming the lock at each try (every three "
                        + METASTORE_LOCK_STALE_MS + "). A running task waits for such a lock as for a metastore "
                        + "outage: its commits are held and tried again, and its claims of newly assigned partitions "
                        + "wait up to " + METASTORE_START_WAIT_MS + ".",
                GROUP, ++order, Width.SHORT, "Foreign lock wait");
    }

    static MetastoreConfig from(AbstractConfig config) {
        return new MetastoreConfig(config.getList(METASTORE_URIS), config.getBoolean(METASTORE_SSL_ENABLED),
                config.getString(METASTORE_SSL_TRUSTSTORE_PATH), config.getPassword(METASTORE_SSL_TRUSTSTORE_PASSWORD),
                config.getString(METASTORE_FENCING), config.getBoolean(METASTORE_SASL_ENABLED),
                config.getString(METASTORE_KERBEROS_PRINCIPAL).trim(), config.getLong(METASTORE_START_WAIT_MS),
                config.getLong(METASTORE_LOCK_STALE_MS), config.getLong(METASTORE_LOCK_FOREIGN_WAIT_MS));
    }

    /**
     * Problems that involve more than one of these keys, or the Kerberos keys: key to message.
     *
     * @param kerberos the task's Kerberos identity, which SASL authenticates as
     */
    Map<String, String> problems(KerberosConfig kerberos) {
        Map<String, String> problems = new LinkedHashMap<>();
        if (saslEnabled && !kerberos.enabled()) {
            problems.put(METASTORE_SASL_ENABLED, "SASL to the metastore authenticates with Kerberos: set "
                    + KerberosConfig.PRINCIPAL + " and " + KerberosConfig.KEYTAB + ".");
        }
        if (saslEnabled && kerberosPrincipal.split("[/@]", -1).length != 3) {
            problems.put(METASTORE_KERBEROS_PRINCIPAL, "Give the metastore's principal as service/host@REALM, for "
                    + "example hive/_HOST@EXAMPLE.COM (its metastore.kerberos.principal).");
        }
        if (sslEnabled && truststorePath.isBlank()) {
            problems.put(METASTORE_SSL_TRUSTSTORE_PATH, "Set a trust store when " + METASTORE_SSL_ENABLED + "=true.");
        }
        return problems;
    }
}
