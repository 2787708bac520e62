package io.hivesink.metastore;

import java.util.List;

/** How to reach the metastore. */
public record MetastoreSettings(List<String> uris, boolean sslEnabled, String truststorePath,
        String truststorePassword) {

    @Override
    public String toString() {
        return "MetastoreSettings[uris=" + uris + ", sslEnabled=" + sslEnabled + ", truststorePath=" + truststorePath
                + ", truststorePassword=[hidden]]";
    }
}
