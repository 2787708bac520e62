package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Kerberos keys: the principal a task is to HDFS and the metastore, logged in from its keytab for the task alone.
 * Both empty: the worker's own user, as without Kerberos.
 *
 * @param principal the principal, {@code _HOST} not yet expanded; empty if none
 * @param keytab    the keytab's path on the worker; empty if none
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record KerberosConfig(String principal, String keytab) {

    public static final String GROUP = "Kerberos";
    public static final String PRINCIPAL = "hadoop.kerberos.principal";
    public static final String KEYTAB = "hadoop.kerberos.keytab";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(PRINCIPAL, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Kerberos principal the connector's tasks are to HDFS and the Hive metastore, for example "
                        + "hive-sink-orders@EXAMPLE.COM or hive-sink/_HOST@EXAMPLE.COM (_HOST: the worker's host "
                        + "name). Each task logs it in from " + KEYTAB + " for itself, never as the worker's JVM-wide "
                        + "login user, so connectors with different principals can share a worker; the ticket is "
                        + "renewed from the keytab before it expires. The worker's krb5.conf "
                        + "(-Djava.security.krb5.conf) names the KDC. Empty: the worker's own user.",
                GROUP, ++order, Width.LONG, "Principal");
        def.define(KEYTAB, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Path of the keytab holding " + PRINCIPAL + "'s key, on every worker that may run the tasks, "
                        + "readable by the worker's OS user. A path, not a secret: keep the file itself readable "
                        + "by that user alone.",
                GROUP, ++order, Width.LONG, "Keytab");
    }

    static KerberosConfig from(AbstractConfig config) {
        return new KerberosConfig(config.getString(PRINCIPAL).trim(), config.getString(KEYTAB).trim());
    }

    /** Whether the tasks log in with a principal of their own. */
    public boolean enabled() {
        return !principal.isEmpty();
    }

    /** Problems that involve more than one of these keys: key to message. */
    Map<String, String> problems() {
        Map<String, String> problems = new LinkedHashMap<>();
        if (principal.isEmpty() != keytab.isEmpty()) {
            problems.put(principal.isEmpty() ? PRINCIPAL : KEYTAB, "Set both " + PRINCIPAL + " and " + KEYTAB
                    + " (the principal is logged in from the keytab), or neither.");
        }
        return problems;
    }
}
