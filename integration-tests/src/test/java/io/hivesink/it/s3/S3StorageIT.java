package io.hivesink.it.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import software.amazon.awssdk.services.s3.S3Client;

import io.hivesink.config.HiveSinkConfig;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagedUploadLostException;
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
        s3.createBucket(BUCKET);
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
        props.putAll(s3.connectorSettings(bucket));
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
    void aStagedFileIsAnUploadNobodySeesUntilItsMoveCompletesItWithoutACopy() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "invisible");
            byte[] content = randomBytes(20 << 20); // three parts of at most 8 MiB
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b1", "events", "region=eu", "f.avro");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/events/region=eu/f.avro");
            assertEquals(content.length, stage(staging, staged, target, content));
            assertFalse(fs.exists(target), "an uncompleted upload is invisible");
            assertEquals(1, openUploads(fs), "one upload, open");
            assertEquals(1, staging.openUploads(), "as the task's metric says");

            Map<String, Long> before = s3.requestsByOperation();
            assertTrue(staging.move(staged, target));
            Map<String, Long> commit = s3.requestsSince(before);
            System.out.println("S3StorageIT: requests to move a 20 MiB file: " + commit);
            assertEquals(0, commit.getOrDefault("CopyObject", 0L) + commit.getOrDefault("UploadPartCopy", 0L),
                    "nothing copied: " + commit);
            assertEquals(1L, commit.get("CompleteMultipartUpload"), commit.toString());
            try (var in = fs.open(target)) {
                assertTrue(Arrays.equals(content, in.readAllBytes()), "the object is the staged bytes");
            }
            assertFalse(fs.exists(staged), "its record is removed");
            assertEquals(0, openUploads(fs));
            assertEquals(0, staging.openUploads());
        }
    }

    @Test
    void aMoveRepeatedAfterACrashFindsTheUploadCompleted() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "repeated");
            byte[] content = randomBytes(100_000);
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b2", "events", "", "f.avro");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/events/f-b2.avro");
            stage(staging, staged, target, content);
            byte[] record;
            try (var in = fs.open(staged)) {
                record = in.readAllBytes();
            }
            assertTrue(staging.move(staged, target));
            try (var out = fs.create(staged, true)) {
                out.write(record); // the run crashed after completing, before removing the record
            }
            staging.move(staged, target); // completed again (S3, S3Proxy) or found completed (MinIO): a no-op
            assertFalse(fs.exists(staged));
            assertFalse(staging.move(staged, target), "and again, with the record gone");
            assertEquals(content.length, fs.getFileStatus(target).getLen());
        }
    }

    @Test
    void aFileStagedAgainByARetryLeavesOneUploadOpen() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "retried");
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b5", "events", "", "f.avro");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/events/b5.avro");
            for (int attempt = 0; attempt < 2; attempt++) {
                stage(staging, staged, target, new byte[] {2});
            }
            assertEquals(1, openUploads(fs), "the first try's upload is aborted");
            staging.discard("b5");
            assertEquals(0, openUploads(fs));
        }
    }

    /**
     * S3A sends a {@code CreateMultipartUpload} again when its answer is lost: the first upload is then recorded
     * nowhere. Once the batch's files are moved, every upload still open on their keys is aborted, in one listing,
     * and another batch's upload in flight beside them is left alone.
     */
    @Test
    void anUploadStartedTwiceByARetriedRequestIsAbortedOnceTheBatchIsMoved() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "twice");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/orders/dt=1/b6-00001.avro");
            org.apache.hadoop.fs.Path other = new org.apache.hadoop.fs.Path("/warehouse/orders/dt=2/b6-00002.avro");
            org.apache.hadoop.fs.Path inFlight = new org.apache.hadoop.fs.Path("/warehouse/orders/dt=1/b7-00001.avro");
            var client = ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("start a lost upload");
            for (org.apache.hadoop.fs.Path lost : List.of(target, inFlight)) {
                String key = ((S3AFileSystem) fs).pathToKey(fs.makeQualified(lost));
                client.createMultipartUpload(b -> b.bucket(BUCKET).key(key)); // its answer lost: recorded nowhere
            }
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b6", "orders", "dt=1", "f1.avro");
            org.apache.hadoop.fs.Path stagedOther = staging.stagedPath("b6", "orders", "dt=2", "f2.avro");
            stage(staging, staged, target, new byte[] {1});
            stage(staging, stagedOther, other, new byte[] {2});
            staging.move(staged, target);
            staging.move(stagedOther, other);
            assertEquals(2, openUploads(fs), "the lost one, and the other batch's");
            Map<String, Long> before = s3.requestsByOperation();
            staging.moved(List.of(target, other));
            Map<String, Long> requests = s3.requestsSince(before);
            assertEquals(1, openUploads(fs), "the other batch's upload in flight is left alone");
            assertEquals(1L, requests.get("ListMultipartUploads"), requests.toString());
            assertEquals(1L, requests.get("AbortMultipartUpload"), requests.toString());
            client.listMultipartUploads(b -> b.bucket(BUCKET)).uploads().forEach(u -> client.abortMultipartUpload(
                    b -> b.bucket(BUCKET).key(u.key()).uploadId(u.uploadId())));
        }
    }

    @Test
    void anUploadAbortedBehindTheConnectorsBackStopsTheTaskSayingSo() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "lost");
            org.apache.hadoop.fs.Path staged = staging.stagedPath("b6", "events", "", "f.avro");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path("/warehouse/events/b6.avro");
            stage(staging, staged, target, new byte[] {3});
            var client = ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("abort as a lifecycle rule does");
            for (var upload : client.listMultipartUploads(b -> b.bucket(BUCKET)).uploads()) {
                client.abortMultipartUpload(b -> b.bucket(BUCKET).key(upload.key()).uploadId(upload.uploadId()));
            }
            StagedUploadLostException e = assertThrows(StagedUploadLostException.class,
                    () -> staging.move(staged, target));
            assertTrue(e.getMessage().contains("b6.avro") && e.getMessage().contains("lifecycle"), e.getMessage());
        }
    }

    @Test
    void aBatchGivenUpBeforeItsIntentHasItsUploadsAborted() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            StagingArea staging = staging(fs, "abandoned");
            for (String batch : List.of("b3", "b4")) {
                for (int n = 0; n < 2; n++) {
                    stage(staging, staging.stagedPath(batch, "events", "", "f" + n + ".avro"),
                            new org.apache.hadoop.fs.Path("/warehouse/events/" + batch + "-" + n + ".avro"),
                            new byte[] {1});
                }
            }
            assertEquals(4, openUploads(fs));
            staging.discard("b3");
            assertEquals(2, openUploads(fs), "b3's uploads aborted");
            assertEquals(2, staging.openUploads(), "as the task's metric says");
            assertEquals(Map.of("b4", false), staging.stagedBatches(), "b4 is left, without a manifest");
            staging.discard("b4");
            assertEquals(0, openUploads(fs));
            assertFalse(fs.exists(new org.apache.hadoop.fs.Path("/warehouse/events/b4-0.avro")));
        }
    }

    /** A staging area of its own for each test, whose batches another test's do not meet. */
    private static StagingArea staging(FileSystem fs, String test) {
        StagingArea staging = new StagingArea(fs, new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging/"
                + test));
        staging.prepare("the test");
        assertTrue(StagingArea.completesUploads(fs));
        return staging;
    }

    private static int openUploads(FileSystem fs) {
        return ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("count the open uploads")
                .listMultipartUploads(b -> b.bucket(BUCKET)).uploads().size();
    }

    /** Stages {@code content} bound for {@code target}, returning the bytes the staging area says it wrote. */
    private static long stage(StagingArea staging, org.apache.hadoop.fs.Path staged, org.apache.hadoop.fs.Path target,
            byte[] content) throws IOException {
        return staging.write(staged, target, out -> {
            out.write(content);
            return content.length;
        });
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new Random(n).nextBytes(bytes);
        return bytes;
    }

    @Test
    void theStartUpProbesUploadLeftByACrashIsAbortedAtTheNextStart() throws IOException {
        try (FileSystem fs = open(BUCKET, S3ProxyProcess.SECRET_KEY)) {
            S3AFileSystem s3a = (S3AFileSystem) fs;
            org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging/probed");
            String key = s3a.pathToKey(fs.makeQualified(new org.apache.hadoop.fs.Path(root, "_probe-upload")));
            S3Client client = s3a.getS3AInternals().getAmazonS3Client("start an upload as a crashed probe left it");
            client.createMultipartUpload(b -> b.bucket(BUCKET).key(key)); // a start killed inside its probe
            assertEquals(1, uploadsOf(client, key));
            org.apache.hadoop.fs.Path probe = new org.apache.hadoop.fs.Path(root, "_probe");
            fs.create(probe).close(); // a start killed between writing its probe object and deleting it
            // an earlier release's probe, named anew at each start
            fs.create(new org.apache.hadoop.fs.Path(root, "_probe-0f8fad5b-d9cb-469f-a165-70867728950e")).close();

            StagingArea staging = staging(fs, "probed"); // the next start
            assertEquals(0, uploadsOf(client, key), "aborted by the next start's probe");
            assertFalse(fs.exists(probe), "the probe object a crash left is removed by the next start's probe");
            assertEquals(Map.of(), staging.stagedBatches(), "a probe object left by a crash is no batch");
        }
    }

    private static int uploadsOf(S3Client client, String key) {
        return (int) client.listMultipartUploads(b -> b.bucket(BUCKET).prefix(key)).uploads().stream()
                .filter(upload -> upload.key().equals(key)).count();
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
}
