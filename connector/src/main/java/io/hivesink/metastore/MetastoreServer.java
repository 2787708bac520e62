package io.hivesink.metastore;

import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;

/**
 * Which Hive release a metastore server is, as far as it can be told over Thrift. Hive 4 reports its version;
 * Hive 2.x and 3.x both answer {@code getVersion} with a fixed "3.0", so the catalogs API (new in 3.0) tells them
 * apart. Only for the log and for error messages: the connector makes the same calls on every supported release.
 */
public record MetastoreServer(String uri, String reportedVersion, String release) {

    /** What Hive 2.x and 3.x servers answer to {@code getVersion}, whatever their release. */
    private static final String LEGACY_FIXED_VERSION = "3.0";

    /** Asks the server over an open connection. */
    static MetastoreServer identify(String uri, ThriftHiveMetastore.Client client) throws TException {
        String reported = client.getVersion();
        if (reported == null || !reported.strip().equals(LEGACY_FIXED_VERSION)) {
            return new MetastoreServer(uri, reported, reported == null || reported.isBlank() ? "unknown" : reported);
        }
        try {
            client.get_catalogs();
            return new MetastoreServer(uri, reported, "3.x");
        } catch (TApplicationException e) {
            if (e.getType() == TApplicationException.UNKNOWN_METHOD) {
                return new MetastoreServer(uri, reported, "2.x");
            }
            throw e;
        }
    }

    /** For the log: {@code Hive metastore 4.0.1 at thrift://host:9083}, with how 2.x and 3.x were told apart. */
    public String describe() {
        String how = switch (release) {
            case "3.x" -> " (getVersion says " + reportedVersion + "; serves the catalog API, new in Hive 3)";
            case "2.x" -> " (getVersion says " + reportedVersion + "; no catalog API, so older than Hive 3)";
            default -> "";
        };
        return "Hive metastore " + release + " at " + uri + how;
    }
}
