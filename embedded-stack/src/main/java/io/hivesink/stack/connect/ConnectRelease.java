package io.hivesink.stack.connect;

/**
 * The Kafka Connect worker releases the tests run, each a stock worker as its own OS process on the classpath of a
 * {@code connect-child*} module, loading hive-sink from {@code plugin.path}.
 */
public enum ConnectRelease {
    /** The 3.x line (Confluent Platform 7.x): the oldest worker hive-sink supports, and the API it compiles to. */
    KAFKA_3_9("3.9.1", "connect-child-3.9"),
    /** The release hive-sink's tests and demo are built with. */
    KAFKA_4_1("4.1.1", "connect-child"),
    /** The newest 4.x worker on Maven Central here. */
    KAFKA_4_3("4.3.1", "connect-child-4.3");

    private final String version;
    private final String module;

    ConnectRelease(String version, String module) {
        this.version = version;
        this.module = module;
    }

    public String version() {
        return version;
    }

    String module() {
        return module;
    }

    @Override
    public String toString() {
        return "Kafka Connect " + version;
    }
}
