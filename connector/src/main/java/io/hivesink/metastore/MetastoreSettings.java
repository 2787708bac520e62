package io.hivesink.metastore;

import java.util.List;

import io.hivesink.security.TaskIdentity;

/**
 * How to reach the metastore.
 *
 * @param saslPrincipal the metastore's Kerberos principal ({@code _HOST}: the host of the URI), when it is talked to
 *     over SASL; null for a plain connection
 * @param saslQop       SASL's quality of protection: auth, auth-int or auth-conf
 * @param identity      who the task is: connections are opened as this identity
 */
public record MetastoreSettings(List<String> uris, boolean sslEnabled, String truststorePath,
        String truststorePassword, String saslPrincipal, String saslQop, TaskIdentity identity) {

    /** A plain connection (TLS or not), as the worker's user. */
    public MetastoreSettings(List<String> uris, boolean sslEnabled, String truststorePath, String truststorePassword) {
        this(uris, sslEnabled, truststorePath, truststorePassword, null, "auth", TaskIdentity.WORKER);
    }

    /** These settings with other URIs (or the same in another order). */
    public MetastoreSettings withUris(List<String> others) {
        return new MetastoreSettings(List.copyOf(others), sslEnabled, truststorePath, truststorePassword,
                saslPrincipal, saslQop, identity);
    }

    public boolean sasl() {
        return saslPrincipal != null;
    }

    @Override
    public String toString() {
        return "MetastoreSettings[uris=" + uris + ", sslEnabled=" + sslEnabled + ", truststorePath=" + truststorePath
                + ", truststorePassword=[hidden], saslPrincipal=" + saslPrincipal + ", saslQop=" + saslQop
                + ", identity=" + identity.describe() + "]";
    }
}
