package io.hivesink.it.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.hivesink.HiveSinkTask;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagingArea;
import io.hivesink.stack.s3.S3ProxyProcess;

/**
 * The plugin's own S3A client (hadoop-aws with the SDK's S3 modules, no bundle) against a real S3 API server: the
 * connector's S3 keys reach it, files are written and read, and a bucket that is missing or refuses the credentials
 * stops the task at start with the bucket, the key prefix and the fix in the message.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3StorageIT {

    private static final String BUCKET = "warehouse";

    private S3ProxyProcess s3;

    @BeforeAll
    void startStore() throws IOException {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "it-stack")),
                getClass().getSimpleName());
        s3 = S3ProxyProcess.start(dir.resolve("s3proxy"));
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("create the test bucket")
                    .createBucket(b -> b.bucket(BUCKET));
        }
    }

    @AfterAll
    void stopStore() {
        if (s3 != null) {
            s3.close();
        }
    }

    private Map<String, String> props(String bucket, String secret) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "s3-test");
        props.put("connector.class", "io.hivesink.HiveSinkConnector");
        props.put("topics", "t");
        props.put("hive.metastore.uris", "thrift://localhost:9083");
        props.put("fs.url", "s3a://" + bucket);
        props.put("s3.endpoint", s3.endpoint());
        props.put("s3.region", S3ProxyProcess.REGION);
        props.put("s3.path.style.access", "true");
        props.put("s3.access.key", S3ProxyProcess.ACCESS_KEY);
        props.put("s3.secret.key", secret);
        return props;
    }

    private FileSystem open(String bucket, String secret) {
        HiveSinkConfig config = HiveSinkConfig.parse(props(bucket, secret));
        Configuration conf = HadoopFileSystems.configuration("", "");
        config.s3().applyTo(conf);
        conf.setInt("fs.s3a.attempts.maximum", 1); // a refusal is not retried for minutes
        conf.setInt("fs.s3a.retry.limit", 1);
        return HadoopFileSystems.open(config.storage().fsUrl(), conf);
    }

    @Test
    void filesAreStagedMovedAndReadBackThroughTheConnectorsS3Keys() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = new StagingArea(fs, new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging"));
            staging.prepare("the test");
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b1", "events", "region=eu", "f.avro");
            byte[] content = "hello, s3".getBytes(StandardCharsets.UTF_8);
            assertEquals(content.length, staging.write(staged, out -> {
                out.write(content);
                return content.length;
            }));
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/events/region=eu/f.avro");
            fs.mkdirs(target.getParent());
            assertTrue(staging.move(staged, target));
            try (var in = fs.open(target)) {
                assertEquals("hello, s3", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            assertFalse(fs.exists(staged));
        }
        System.out.println("S3StorageIT requests: " + s3.requestsByOperation());
    }

    @Test
    void aTaskRefusesToCommitOnS3ByRenameThatWouldCopyEveryByte() {
        Map<String, String> props = props(BUCKET, S3ProxyProcess.SECRET_KEY);
        props.put("hive-sink.task.id", "0");
        HiveSinkTask task = new HiveSinkTask();
        task.initialize(new NoContext());
        ConnectException e = assertThrows(ConnectException.class, () -> task.start(props));
        assertTrue(e.getMessage().contains("s3a://" + BUCKET) && e.getMessage().contains("rename"), e.getMessage());
    }

    @Test
    void aMissingBucketStopsTheTaskAtStartNamingTheBucketAndTheFix() throws IOException {
        try (FileSystem fs = open("no-such-bucket", S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = new StagingArea(fs, new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging"));
            ConnectException e = assertThrows(ConnectException.class, () -> staging.prepare("the test"));
            System.out.println("Missing bucket: " + e.getMessage());
            assertTrue(e.getMessage().contains("no-such-bucket"), e.getMessage());
        }
    }

    @Test
    void credentialsTheStoreRefusesStopTheTaskAtStartNamingTheKeys() throws IOException {
        try (FileSystem fs = open(BUCKET, "not-the-secret")) {
            StagingArea staging = new StagingArea(fs, new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging"));
            ConnectException e = assertThrows(ConnectException.class, () -> staging.prepare("the test"));
            System.out.println("Refused credentials: " + e.getMessage());
            assertTrue(e.getMessage().contains("s3.secret.key"), e.getMessage());
        }
    }

    /** A task context without an errant-record reporter, for a task that is only started. */
    private static final class NoContext implements SinkTaskContext {
        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
        }

        @Override
        public void timeout(long timeoutMs) {
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.of();
        }

        @Override
        public void pause(TopicPartition... partitions) {
        }

        @Override
        public void resume(TopicPartition... partitions) {
        }

        @Override
        public void requestCommit() {
        }

        @Override
        public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
            return null;
        }
    }
}
