package io.hivesink.stack.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import io.hivesink.stack.child.ChildClasspath;
import io.hivesink.stack.child.FreePorts;
import io.hivesink.stack.child.Freeze;

/**
 * A Kafka Connect worker in distributed mode as its own OS process, on a bare Kafka classpath, loading hive-sink
 * from {@code plugin.path} as a user's worker does; so a test can kill it like a crash kills a machine.
 *
 * <p>Files in {@code workDir}: {@code worker.properties}, {@code log4j2.xml}, {@code worker.log} (its log) and
 * {@code console.log} (what it printed).
 */
public final class ConnectWorkerProcess implements AutoCloseable {

    /**
     * JVM options every worker of this JVM gets, from the system property {@value #SUITE_JVM_OPTIONS_PROPERTY}
     * (space-separated). The integration tests set C1-only compilation there: their workers live seconds, and C2's
     * compiler threads then took a quarter of the machine's CPU over a crash test (120 CPU-seconds with C1 against
     * 165-185 without); the benchmarks leave it unset, since they measure the worker's steady pace.
     */
    public static final String SUITE_JVM_OPTIONS_PROPERTY = "hivesink.worker.jvmOptions";
    private static final List<String> SUITE_JVM_OPTIONS = List.of(System.getProperty(SUITE_JVM_OPTIONS_PROPERTY, "")
            .trim().split("\\s+")).stream().filter(option -> !option.isEmpty()).toList();

    private final String name;
    private final Process process;
    private final Path workDir;
    private final ConnectRest rest;
    private final int jmxPort;
    private JMXConnector jmx;

    private ConnectWorkerProcess(String name, Process process, Path workDir, ConnectRest rest, int jmxPort) {
        this.jmxPort = jmxPort;
        this.name = name;
        this.process = process;
        this.workDir = workDir;
        this.rest = rest;
    }

    /**
     * Starts a worker of the given release in the Connect cluster {@code groupId} and waits until its REST API
     * answers.
     *
     * @param pluginPath the directory holding the unpacked plugin
     * @param extraProps worker settings that replace or add to the defaults (small timeouts for tests)
     * @param environment extra environment variables, e.g. the fault-injection switch
     */
    public static ConnectWorkerProcess start(ConnectRelease release, String name, Path workDir,
            String bootstrapServers, String groupId, Path pluginPath, Map<String, String> extraProps,
            Map<String, String> environment) throws IOException {
        return start(release, name, workDir, bootstrapServers, groupId, pluginPath, extraProps, environment, List.of(),
                "INFO");
    }

    /**
     * As above, with extra JVM options (e.g. {@code -Djava.security.krb5.conf=...}) and a log level: {@code INFO}
     * logs hive-sink and the sink task at INFO and the rest at WARN; any other level logs everything at that level.
     */
    public static ConnectWorkerProcess start(ConnectRelease release, String name, Path workDir,
            String bootstrapServers, String groupId, Path pluginPath, Map<String, String> extraProps,
            Map<String, String> environment, List<String> jvmOptions, String logLevel) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(release, name, workDir, bootstrapServers, groupId, pluginPath, extraProps,
                        environment, jvmOptions, logLevel);
            } catch (IllegalStateException e) {
                // a free port picked here can be taken by another process (test JVMs run side by side) before
                // the worker binds it: start again on other ports
                String message = String.valueOf(e.getMessage());
                if (attempt == 3 || !(message.contains("Address already in use")
                        || message.contains("Port already in use"))) {
                    throw e;
                }
            }
        }
    }

    private static ConnectWorkerProcess startOnce(ConnectRelease release, String name, Path workDir,
            String bootstrapServers, String groupId, Path pluginPath, Map<String, String> extraProps,
            Map<String, String> environment, List<String> jvmOptions, String logLevel) throws IOException {
        Files.createDirectories(workDir);
        int port = FreePorts.next();
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("group.id", groupId);
        props.put("config.storage.topic", groupId + "-configs");
        props.put("offset.storage.topic", groupId + "-offsets");
        props.put("status.storage.topic", groupId + "-status");
        props.put("config.storage.replication.factor", "1");
        props.put("offset.storage.replication.factor", "1");
        props.put("status.storage.replication.factor", "1");
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("listeners", "http://localhost:" + port);
        props.put("rest.advertised.host.name", "localhost");
        props.put("plugin.path", pluginPath.toAbsolutePath().toString());
        props.put("plugin.discovery", "service_load");
        props.put("offset.flush.interval.ms", "2000");
        // a dead worker's tasks move after seconds, not the default five minutes (see shared/STACK.md)
        props.put("scheduled.rebalance.max.delay.ms", "5000");
        // a halted worker and its tasks' consumers leave their groups after 6 s (the broker's least), not 10 s and
        // 45 s: the crash tests replace a halted worker two dozen times
        props.put("session.timeout.ms", "6000");
        props.put("heartbeat.interval.ms", "1000");
        props.put("consumer.session.timeout.ms", "6000");
        props.put("consumer.heartbeat.interval.ms", "1000");
        props.putAll(extraProps);
        Path propsFile = workDir.resolve("worker.properties");
        StringBuilder text = new StringBuilder();
        props.forEach((k, v) -> text.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        Files.writeString(propsFile, text, StandardCharsets.UTF_8);
        Path log4j = workDir.resolve("log4j2.xml");
        Files.writeString(log4j, log4jConfig(workDir.resolve("worker.log"), logLevel), StandardCharsets.UTF_8);

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx768m");
        command.addAll(SUITE_JVM_OPTIONS);
        command.add("-Dlog4j2.configurationFile=" + log4j.toAbsolutePath());
        // JMX on a local port, as an operator's agent would read the worker's metrics (see jmx())
        int jmxPort = FreePorts.next();
        command.add("-Dcom.sun.management.jmxremote.port=" + jmxPort);
        command.add("-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort);
        command.add("-Dcom.sun.management.jmxremote.host=127.0.0.1");
        command.add("-Djava.rmi.server.hostname=127.0.0.1");
        command.add("-Dcom.sun.management.jmxremote.authenticate=false");
        command.add("-Dcom.sun.management.jmxremote.ssl=false");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(ChildClasspath.connectWorker(release.module()).classpath());
        command.add("org.apache.kafka.connect.cli.ConnectDistributed");
        command.add(propsFile.toAbsolutePath().toString());
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("console.log").toFile()));
        builder.environment().putAll(environment);
        Process process = builder.start();
        ConnectRest rest = new ConnectRest("http://localhost:" + port + "/");
        ConnectWorkerProcess worker = new ConnectWorkerProcess(name, process, workDir, rest, jmxPort);
        worker.awaitReady(Duration.ofSeconds(90));
        return worker;
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Connect worker " + name + " exited with " + process.exitValue()
                        + " while starting; its log ends with:\n" + logTail());
            }
            if (rest.isUp()) {
                return;
            }
            sleep(250);
        }
        kill();
        throw new IllegalStateException("Connect worker " + name + " did not answer within " + timeout.toSeconds()
                + " s; its log ends with:\n" + logTail());
    }

    public String name() {
        return name;
    }

    /** Where the worker runs: its files, and anything it writes to a relative path (a GC log, say). */
    public Path workDir() {
        return workDir;
    }

    public ConnectRest rest() {
        return rest;
    }

    /** The worker's MBeans, over JMX (connected on first use, closed with the worker). */
    // JMX over RMI looks the connector up by JNDI: here only a worker this test harness started, on 127.0.0.1
    @SuppressWarnings("BanJNDI")
    public synchronized MBeanServerConnection jmx() throws IOException {
        if (jmx == null) {
            // JNDI's RMI registry context, whatever a jndi.properties on the test classpath (Jetty's) says
            jmx = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort
                    + "/jmxrmi"), Map.of("java.naming.factory.initial",
                            "com.sun.jndi.rmi.registry.RegistryContextFactory"));
        }
        return jmx.getMBeanServerConnection();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the process to end on its own (a fault-injection halt).
     *
     * @return its exit code
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("Connect worker " + name + " still runs after " + timeout.toSeconds()
                    + " s; its log ends with:\n" + logTail());
        }
        return process.exitValue();
    }

    private synchronized void closeJmx() {
        if (jmx != null) {
            try {
                jmx.close();
            } catch (IOException e) {
                // the worker is going away anyway
            }
            jmx = null;
        }
    }

    /**
     * Freezes the worker (SIGSTOP), as a long pause would: it sends no heartbeat, its tasks run nothing, and it comes
     * back at {@link #thaw} as if no time had passed.
     */
    public void freeze() {
        Freeze.stop(process.pid());
    }

    /** Lets a frozen worker run on. */
    public void thaw() {
        Freeze.resume(process.pid());
    }

    /** Ends the worker like a power cut: SIGKILL, no shutdown hooks, nothing flushed. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeJmx();
    }

    /** Stops the worker cleanly (SIGTERM): it leaves the group and its tasks move at once. */
    @Override
    public void close() {
        closeJmx();
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    /** Every line the worker logged or printed so far: its log, then its console. */
    public List<String> logLines() {
        List<String> lines = new ArrayList<>();
        for (String file : List.of("worker.log", "console.log")) {
            Path path = workDir.resolve(file);
            try {
                if (Files.exists(path)) {
                    lines.addAll(Files.readAllLines(path, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return lines;
    }

    /** The last lines of the worker's log, for failure messages. */
    /** The worker JVM's process id, to read what the operating system knows of it (its threads' CPU times). */
    public long pid() {
        return process.pid();
    }

    public String logTail() {
        StringBuilder tail = new StringBuilder();
        for (String file : List.of("worker.log", "console.log")) {
            Path path = workDir.resolve(file);
            try {
                if (Files.exists(path)) {
                    List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
                    lines.subList(Math.max(0, lines.size() - 40), lines.size())
                            .forEach(l -> tail.append(l).append('\n'));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return tail.toString();
    }

    private static String log4jConfig(Path logFile, String level) {
        String loggers = level.equals("INFO")
                ? """
                    <Logger name="io.hivesink" level="INFO"/>
                    <Logger name="org.apache.kafka" level="WARN"/>
                    <Logger name="org.apache.kafka.connect.runtime.WorkerSinkTask" level="INFO"/>
                    <Logger name="org.apache.hadoop" level="WARN"/>
                    <Logger name="org.eclipse.jetty" level="WARN"/>
                    <Root level="INFO"><AppenderRef ref="file"/></Root>
                """
                : """
                    <Root level="%s"><AppenderRef ref="file"/></Root>
                """.formatted(level);
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <Configuration status="WARN">
                  <Appenders>
                    <File name="file" fileName="%s" append="true">
                      <PatternLayout pattern="%%d{HH:mm:ss.SSS} %%-5level [%%t] %%c{1.}: %%msg%%n"/>
                    </File>
                  </Appenders>
                  <Loggers>
                %s  </Loggers>
                </Configuration>
                """.formatted(logFile.toAbsolutePath(), loggers);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
