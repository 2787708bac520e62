package io.hivesink.stack.hive;

/**
 * The Hive metastore releases the tests run, each a stock server from Maven Central in a child JVM of its own: 4.0.1
 * through hive-child's {@code MetastoreMain}, the older ones through their own {@code HiveMetaStore.main} on the
 * jars of a {@code metastore-child-*} module.
 */
public enum MetastoreRelease {
    /** {@code hive-metastore:2.3.10} on Hadoop 2.10.2: enforces compare-and-set (HIVE-26882 was backported). */
    HIVE_2_3("2.3.10", "metastore-child-2.3", null),
    /** {@code hive-standalone-metastore:3.1.3}: ignores compare-and-set, so fencing needs its lock tables. */
    HIVE_3_1("3.1.3", "metastore-child-3.1", "hive-schema-3.1.0.derby.sql"),
    /** {@code hive-standalone-metastore-server:4.0.1}. */
    HIVE_4_0("4.0.1", "hive-child", "hive-schema-4.0.0.derby.sql");

    private final String version;
    private final String module;
    private final String schemaScript;

    MetastoreRelease(String version, String module, String schemaScript) {
        this.version = version;
        this.module = module;
        this.schemaScript = schemaScript;
    }

    public String version() {
        return version;
    }

    /** The module that writes this release's child classpath. */
    String module() {
        return module;
    }

    /** The release's own Derby schema script, unpacked into {@code <module>/target/metastore-schema}; may be null. */
    String schemaScript() {
        return schemaScript;
    }

    /** Started through its own main class rather than hive-child's {@code MetastoreMain}. */
    boolean legacy() {
        return this != HIVE_4_0;
    }

    @Override
    public String toString() {
        return "Hive metastore " + version;
    }
}
