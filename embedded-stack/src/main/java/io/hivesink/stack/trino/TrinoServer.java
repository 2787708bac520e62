package io.hivesink.stack.trino;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.hivesink.stack.child.ChildClasspath;
import io.hivesink.stack.child.FreePorts;

/**
 * Trino 476 as its users run it beside Hive: a coordinator that also works, with one catalog, {@code hive}, on a
 * Thrift metastore, reading the tables' files from HDFS. A child process on a Java of its own (Trino 476 needs 24 or
 * later; the project and its tests stay on 17), from the server {@code child-jvms/trino-server} unpacks.
 */
public final class TrinoServer implements AutoCloseable {

    /** Trino 476's least Java feature release. */
    public static final int LEAST_JAVA = 24;
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final String SERVER = "target/server/trino-server-476";

    private final Path dir;
    private final int port;
    private final Process process;
    private final Path log;

    private TrinoServer(Path dir, int port, Process process, Path log) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /**
     * A Java home of release {@value #LEAST_JAVA} or later: {@code -Dhivesink.trino.javaHome}, else
     * {@code TRINO_JAVA_HOME}, else the newest under {@code /usr/lib/jvm}. Empty if there is none (the caller says
     * why it does not run Trino).
     */
    public static Optional<Path> javaHome() {
        String named = System.getProperty("hivesink.trino.javaHome", System.getenv("TRINO_JAVA_HOME"));
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named)).filter(home -> release(home) >= LEAST_JAVA);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(home -> release(home) >= LEAST_JAVA).max((a, b) -> Integer.compare(release(a),
                    release(b)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The feature release of the JDK at {@code home}, from its {@code release} file; 0 if it is not one. */
    static int release(Path home) {
        Path file = home.resolve("release");
        if (!Files.isRegularFile(file) || !Files.isExecutable(home.resolve("bin/java"))) {
            return 0;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    String feature = version.split("[.+-]", 2)[0];
                    return Integer.parseInt(feature);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /**
     * Starts Trino under {@code workDir} with the Hive catalog on {@code metastoreUri}, and waits until it takes
     * queries.
     *
     * @param catalog further properties of the {@code hive} catalog
     */
    public static TrinoServer start(Path javaHome, Path workDir, String metastoreUri, Map<String, String> catalog)
            throws IOException {
        Path server = ChildClasspath.moduleOnly("trino-server").resolve(SERVER);
        if (!Files.isDirectory(server.resolve("lib")) || !Files.isDirectory(server.resolve("plugin/hive/hdfs"))) {
            throw new IllegalStateException("Trino's server is not unpacked at " + server + ": build the project "
                    + "first (./mvnw -DskipTests install from the repository root)");
        }
        Path dir = Files.createDirectories(workDir.toAbsolutePath());
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Path catalogs = Files.createDirectories(etc.resolve("catalog"));
        int port = FreePorts.next();
        Files.writeString(etc.resolve("config.properties"), String.join("\n",
                "coordinator=true",
                "node-scheduler.include-coordinator=true",
                "http-server.http.port=" + port,
                "discovery.uri=http://127.0.0.1:" + port,
                "plugin.dir=" + server.resolve("plugin"),
                "catalog.config-dir=" + catalogs,
                "query.max-memory=1GB",
                "query.max-memory-per-node=1GB",
                ""), StandardCharsets.UTF_8);
        List<String> hive = new ArrayList<>(List.of("connector.name=hive", "hive.metastore.uri=" + metastoreUri,
                "fs.hadoop.enabled=true"));
        catalog.forEach((key, value) -> hive.add(key + "=" + value));
        Files.writeString(catalogs.resolve("hive.properties"), String.join("\n", hive) + "\n",
                StandardCharsets.UTF_8);
        Files.writeString(etc.resolve("log.properties"), "io.trino=WARN\n", StandardCharsets.UTF_8);

        List<String> command = List.of(javaHome.resolve("bin/java").toString(), "-Xmx1536m", "-XX:+UseG1GC",
                "-XX:+ExitOnOutOfMemoryError", "-XX:-OmitStackTraceInFastThrow", "-XX:+EnableDynamicAgentLoading",
                "-Djdk.attach.allowAttachSelf=true", "-Dfile.encoding=UTF-8", "-Duser.timezone=UTC",
                "-Dnode.environment=test", "-Dnode.id=" + UUID.randomUUID(), "-Dnode.data-dir=" + dir.resolve("data"),
                "-Dnode.internal-address=127.0.0.1", // else it names an address of the machine's network, not loopback
                "-Dconfig=" + etc.resolve("config.properties"), "-Dlog.levels-file=" + etc.resolve("log.properties"),
                "-cp", server.resolve("lib") + File.separator + "*", "io.trino.server.TrinoServer");
        Path log = dir.resolve("trino.log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        TrinoServer trino = new TrinoServer(dir, port, process, log);
        trino.awaitStarted();
        return trino;
    }

    private void awaitStarted() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!started() || !runsQueries()) {
            if (!process.isAlive()) {
                throw new IOException("Trino exited with status " + process.exitValue() + " at start: see " + log);
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new IOException("Trino did not start within " + START_TIMEOUT.toSeconds() + " s: see " + log);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IOException("interrupted while Trino started", e);
            }
        }
    }

    /** Whether a query runs: the server takes queries only once it has announced itself as a worker. */
    private boolean runsQueries() {
        try {
            return sql("default").query("SELECT 1").equals(List.of(List.of("1")));
        } catch (TrinoSql.TrinoException e) {
            return false;
        }
    }

    /** Whether {@code /v1/info} says the server is no longer starting. */
    private boolean started() {
        try {
            HttpURLConnection connection = (HttpURLConnection) uri().resolve("/v1/info").toURL().openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(2_000);
            if (connection.getResponseCode() != 200) {
                return false;
            }
            String body = new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            connection.disconnect();
            return body.replace(" ", "").contains("\"starting\":false");
        } catch (IOException e) {
            return false;
        }
    }

    /** Where clients reach it. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** A client session as {@code user}, in the {@code hive} catalog and {@code schema}. */
    public TrinoSql sql(String schema) {
        return new TrinoSql(uri(), "hive-sink-test", "hive", schema);
    }

    /** The server's output, for a failure's message. */
    public Path log() {
        return log;
    }

    /** The directory it runs in. */
    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while Trino stopped", e));
        }
    }
}
