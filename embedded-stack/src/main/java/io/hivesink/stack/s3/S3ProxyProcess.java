package io.hivesink.stack.s3;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.hivesink.stack.child.ChildClasspath;
import io.hivesink.stack.child.FreePorts;

/**
 * S3Proxy in a child JVM: a real S3 API server (signatures, multipart uploads, listings) keeping its buckets in a
 * directory, so that it can be stopped for an outage and started again on the same port with the same objects. It
 * counts the requests it served per S3 operation (its Prometheus endpoint), which is how a test asserts that a commit
 * copied nothing.
 */
public final class S3ProxyProcess implements AutoCloseable {

    /** The credentials S3Proxy checks (AWS signature v2 or v4). */
    public static final String ACCESS_KEY = "hive-sink-access";
    public static final String SECRET_KEY = "hive-sink-secret-key";
    /** S3Proxy takes any region; S3A must be told one, or it asks AWS where the bucket is. */
    public static final String REGION = "us-east-1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern SAMPLE = Pattern.compile(
            "^http_server_request_duration_seconds_count\\{[^}]*s3_operation=\"([A-Za-z]+)\"[^}]*} ([0-9.eE+]+)",
            Pattern.MULTILINE);

    private final Path dir;
    private final int port;
    private Process process;
    /** Requests served by the processes stopped before this one, so that counts span outages. */
    private final Map<String, Long> servedBefore = new HashMap<>();
    /** Why the counts of a stopped process could not be read, if they could not: counts are then incomplete. */
    private IOException countsLost;

    private S3ProxyProcess(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts S3Proxy on a free port, its objects under {@code dir}. */
    public static S3ProxyProcess start(Path dir) throws IOException {
        int port = FreePorts.next();
        S3ProxyProcess proxy = new S3ProxyProcess(dir.toAbsolutePath(), port);
        proxy.startProcess();
        return proxy;
    }

    private void startProcess() throws IOException {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path properties = dir.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=" + endpoint(),
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                "s3proxy.metrics.enabled=true",
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data,
                ""), StandardCharsets.UTF_8);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", ChildClasspath.s3proxy().classpath(), "org.gaul.s3proxy.Main",
                "--properties", properties.toString());
        File log = dir.resolve("s3proxy.log").toFile();
        process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!answers()) {
            if (!process.isAlive()) {
                throw new IOException("S3Proxy exited with status " + process.exitValue() + " at start: see " + log);
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new IOException("S3Proxy did not answer on " + endpoint() + " within " + START_TIMEOUT
                        .toSeconds() + " s: see " + log);
            }
            sleep(100);
        }
    }

    private boolean answers() {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(endpoint() + "/healthz").toURL()
                    .openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(2_000);
            int status = connection.getResponseCode();
            connection.disconnect();
            return status == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** Where S3 clients reach it, for {@code fs.s3a.endpoint} (path-style access). */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** Creates a bucket: on S3Proxy's filesystem store, a bucket is a directory of its data directory. */
    public void createBucket(String bucket) throws IOException {
        Files.createDirectories(dataDir().resolve(bucket));
    }

    /** S3A's settings for reaching it (path-style, its region and credentials), as a Hadoop configuration has them. */
    public Map<String, String> s3aSettings() {
        return Map.of("fs.s3a.endpoint", endpoint(), "fs.s3a.path.style.access", "true",
                "fs.s3a.endpoint.region", REGION, "fs.s3a.access.key", ACCESS_KEY, "fs.s3a.secret.key", SECRET_KEY);
    }

    /** The connector's settings that reach {@code bucket} here: {@code fs.url} and the {@code s3.*} keys. */
    public Map<String, String> connectorSettings(String bucket) {
        return Map.of("fs.url", "s3a://" + bucket, "s3.endpoint", endpoint(), "s3.region", REGION,
                "s3.path.style.access", "true", "s3.access.key", ACCESS_KEY, "s3.secret.key", SECRET_KEY);
    }

    /** The directory holding its objects. */
    public Path dataDir() {
        return dir.resolve("data");
    }

    /** Stops it, as a store that goes away: clients get connection refused until {@link #restart}. */
    public void stop() {
        if (process == null) {
            return;
        }
        try {
            servedSinceStart().forEach((operation, n) -> servedBefore.merge(operation, n, Long::sum));
        } catch (IOException e) {
            countsLost = e;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** Starts it again on the same port with the same objects; {@link #requestsByOperation} counts on. */
    public void restart() throws IOException {
        stop();
        startProcess();
    }

    /**
     * The requests served since it was first started, across restarts, per S3 operation as S3Proxy names them
     * ({@code PutObject}, {@code CopyObject}, {@code CompleteMultipartUpload}, ...).
     */
    public Map<String, Long> requestsByOperation() throws IOException {
        if (countsLost != null) {
            throw new IOException("the request counts of a stopped S3Proxy could not be read", countsLost);
        }
        Map<String, Long> counts = new HashMap<>(servedBefore);
        servedSinceStart().forEach((operation, n) -> counts.merge(operation, n, Long::sum));
        return counts;
    }

    /** The requests served since {@code before} was read from {@link #requestsByOperation}, those of 0 left out. */
    public Map<String, Long> requestsSince(Map<String, Long> before) throws IOException {
        Map<String, Long> since = new TreeMap<>();
        requestsByOperation().forEach((operation, n) -> {
            long served = n - before.getOrDefault(operation, 0L);
            if (served != 0) {
                since.put(operation, served);
            }
        });
        return since;
    }

    /** What the running process served: S3Proxy's metrics start over with each process. */
    private Map<String, Long> servedSinceStart() throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create(endpoint() + "/metrics").toURL()
                .openConnection();
        String body;
        try (var in = connection.getInputStream()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
        Map<String, Long> counts = new HashMap<>();
        Matcher m = SAMPLE.matcher(body);
        while (m.find()) {
            counts.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return counts;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while S3Proxy starts", e));
        }
    }

    @Override
    public void close() {
        stop();
    }
}
