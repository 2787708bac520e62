package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.Test;

import io.hivesink.commit.FaultPoint;
import io.hivesink.it.support.OnS3;
import io.hivesink.it.support.OutageChecks;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.s3.S3ProxyProcess;

/**
 * {@link ExactlyOnceIT}'s worker killed at every step of the commit, with the tables on S3 (S3Proxy): files staged
 * as uncompleted multipart uploads and moved by completing them. Then Hive reads every record once through the
 * metastore, no upload is left open, no staged record is left, and the store never copied an object. The same
 * holds across a minute in which the store is down while records flow, and for a commit stalled until another task
 * took its partitions, a silent metastore and a frozen worker, whose batches are dropped with their uploads, and for
 * commits failing while staged, at their intent and half moved, across workers joining and killed, whose batches
 * leave no upload open. The locks left behind are the metastore's fault, run on HDFS only. Here on
 * metastore 4.0.1, fencing by compare-and-set; {@link ExactlyOnceS3LocksIT} runs the same on 3.1.3, fencing by locks.
 */
@OnS3
class ExactlyOnceS3IT extends ExactlyOnceIT {

    static final Duration STORE_OUTAGE = Duration.ofSeconds(30);

    @Override
    boolean killsAtEveryStep() {
        return true;
    }

    @Override
    void aSecondWorkerJoiningAndLeavingMidStreamLosesAndDuplicatesNothing() {
        // a worker joins, and leaves without a goodbye, at each failed commit below: that test, with faults
    }

    /** Killed, as the rebalance test kills it: its batches' uploads stay open until a claim finds them. */
    @Override
    void leave(ConnectWorkerProcess worker) {
        worker.kill();
        worker.close();
    }

    /**
     * The steps where the store holds a batch's records in a state of its own: uploads open (staged), some completed
     * (moved). The later ones are the metastore's alone, run on HDFS.
     */
    @Override
    List<FaultPoint> commitFailurePoints() {
        return List.of(FaultPoint.SOME_STAGED, FaultPoint.INTENT_DURABLE, FaultPoint.HALF_MOVED);
    }

    /** The batches dropped at the rebalances left no upload open; failed and retried, none was copied. */
    @Override
    void afterCommitFailures(String connector) throws Exception {
        awaitNothingStaged(connector, Duration.ofSeconds(60));
    }

    @Override
    void locksLeftOnTheTaskStatesByAKilledWorkerAreBrokenAndTheTasksRunOn() {
        // the metastore's locks: HDFS only
    }

    @Test
    void aStoreOutageOfHalfAMinuteWhileRecordsFlowLosesAndDuplicatesNothing() throws Exception {
        String connector = "s3-outage";
        OutageChecks checks = (readsAfterTheLastTest() ? OutageChecks.readByCaller(stack, DATABASE)
                : new OutageChecks(stack, DATABASE)).withSetting("hadoop.conf.dir",
                        failFastS3a().toAbsolutePath().toString());
        OutageChecks.Ridden ridden = checks.ridesOut("s3.outage", connector, worker -> {
            long stoppedAt = System.nanoTime();
            stack.s3().stop();
            try {
                Thread.sleep(STORE_OUTAGE.toMillis());
            } finally {
                stack.s3().restart();
            }
            System.out.printf(getClass().getSimpleName() + ": the store was down for %d s while records flowed%n",
                    (System.nanoTime() - stoppedAt) / 1_000_000_000);
        });
        assertTrue(ridden.workerLog().stream().anyMatch(line -> line.contains("Fencing by metastore " + fencing())),
                "the tasks fenced by " + fencing());
        read(List.of(checks.everyOrderQuery("s3_outage")),
                results -> checks.checkEveryOrderAsProduced("s3_outage", ridden.produced(), results.get(0)));
        assertNothingStaged(connector);
        List<String> warnings = ridden.workerLog().stream().filter(line -> line.contains(" WARN ")
                || line.contains(" ERROR ")).toList();
        System.out.printf("%s: %,d records landed across the outage, each offset once in the ledger (their values "
                + "read %s); the worker logged %d warnings and errors, the first: %s%n", getClass().getSimpleName(),
                ridden.produced(), readsAfterTheLastTest() ? "after the last test" : "value by value",
                warnings.size(), warnings.isEmpty() ? "-" : warnings.get(0));
    }

    /**
     * A core-site.xml in which S3A gives up after one quick retry. S3A's defaults retry for about a minute, which
     * would hide this outage inside one slow request; here each step of the connector's cycle meets it as a failure
     * and must retry by itself, as it must whenever an outage outlasts S3A's retries.
     */
    private Path failFastS3a() throws IOException {
        Path dir = Files.createDirectories(stack.workDir().resolve("s3a-fail-fast"));
        Files.writeString(dir.resolve("core-site.xml"), """
                <?xml version="1.0"?>
                <configuration>
                  <property><name>fs.s3a.retry.limit</name><value>1</value></property>
                  <property><name>fs.s3a.retry.interval</name><value>200ms</value></property>
                  <property><name>fs.s3a.attempts.maximum</name><value>1</value></property>
                </configuration>
                """, StandardCharsets.UTF_8);
        return dir;
    }

    @Override
    void assertNothingStaged(String connector) throws Exception {
        super.assertNothingStaged(connector);
        S3ProxyProcess s3 = stack.s3();
        S3AFileSystem fs = (S3AFileSystem) stack.tableFileSystem();
        // this connector's uploads only: a test before it may leave some of its own by design (a thawed instance
        // stopped by Connect while staging leaves them, as a crash would, until that task's next claim)
        String batchFiles = "/part-" + connector.replace('-', '_') + "-t";
        assertEquals(List.of(), fs.getS3AInternals().getAmazonS3Client("list open uploads")
                .listMultipartUploads(b -> b.bucket(FailoverStack.S3_BUCKET)).uploads().stream()
                .map(u -> u.key()).filter(key -> key.contains(batchFiles)).toList(), "no upload left open");
        Map<String, Long> requests = s3.requestsByOperation();
        System.out.println(getClass().getSimpleName() + ": requests to the store: " + requests);
        assertEquals(0L, requests.getOrDefault("CopyObject", 0L) + requests.getOrDefault("UploadPartCopy", 0L),
                "no object copied: " + requests);
    }
}
