package io.hivesink;

/** The connector's version, from the jar manifest the build writes. */
final class Versions {

    private Versions() {
    }

    static String connector() {
        String version = HiveSinkConnector.class.getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }
}
