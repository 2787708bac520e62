package io.hivesink.metastore;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The metastore is a release the connector cannot work with: retrying will not help, the user has to point the
 * connector at a supported metastore. The message names the server, what failed and the supported releases.
 */
public final class UnsupportedMetastoreException extends ConnectException {

    static final String SUPPORTED = "hive-sink supports Hive metastore 2.3.x, 3.1.x and 4.0.x";

    private UnsupportedMetastoreException(String message) {
        super(message);
    }

    static UnsupportedMetastoreException missingCall(MetastoreServer server, String method, String what) {
        return new UnsupportedMetastoreException(describe(server) + " does not serve the Thrift call " + method
                + " (asked for " + what + "), which hive-sink needs. " + SUPPORTED
                + ": set hive.metastore.uris to one of those, or upgrade this metastore.");
    }

    private static String describe(MetastoreServer server) {
        return server == null ? "The Hive metastore" : "The " + server.describe();
    }
}
