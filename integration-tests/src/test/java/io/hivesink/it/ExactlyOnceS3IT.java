package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import io.hivesink.it.support.OnS3;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.s3.S3ProxyProcess;

/**
 * {@link ExactlyOnceIT}'s worker killed at every step of the commit, with the tables on S3 (S3Proxy): files staged
 * as uncompleted multipart uploads and moved by completing them. Then Hive reads every record once through the
 * metastore, no upload is left open, no staged record is left, and the store never copied an object. The other
 * faults of ExactlyOnceIT touch the metastore, not the store, and run on HDFS only.
 */
@OnS3
class ExactlyOnceS3IT extends ExactlyOnceIT {

    @Override
    boolean killsAtEveryStep() {
        return true;
    }

    @Override
    void aSecondWorkerJoiningAndLeavingMidStreamLosesAndDuplicatesNothing() {
        // the store plays no part in a rebalance: HDFS only
    }

    @Override
    void aZombieTaskIsFencedAndItsLateCommitRefused() {
        // fencing is the metastore's: HDFS only
    }

    @Override
    void aCommitFailingAtEachStepAcrossARebalanceLosesDuplicatesAndStallsNothing() {
        // the metastore's faults: HDFS only
    }

    @Override
    void locksLeftOnTheTaskStatesByAKilledWorkerAreBrokenAndTheTasksRunOn() {
        // the metastore's locks: HDFS only
    }

    @Override
    void assertNothingStaged(String connector) throws Exception {
        S3ProxyProcess s3 = stack.s3();
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
        s3.s3aSettings().forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(java.net.URI.create("s3a://" + FailoverStack.S3_BUCKET), conf)) {
            List<String> left = new ArrayList<>();
            org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path("/warehouse/hive-sink/.hive-sink-staging/"
                    + connector.replace('-', '_'));
            if (fs.exists(staging)) {
                RemoteIterator<LocatedFileStatus> files = fs.listFiles(staging, true);
                while (files.hasNext()) {
                    left.add(files.next().getPath().toString());
                }
            }
            assertEquals(List.of(), left, "no staged debris");
            assertEquals(List.of(), ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("list open uploads")
                    .listMultipartUploads(b -> b.bucket(FailoverStack.S3_BUCKET)).uploads().stream()
                    .map(u -> u.key()).toList(), "no upload left open");
        }
        Map<String, Long> requests = s3.requestsByOperation();
        System.out.println("ExactlyOnceS3IT: requests to the store: " + requests);
        assertEquals(0L, requests.getOrDefault("CopyObject", 0L) + requests.getOrDefault("UploadPartCopy", 0L),
                "no object copied: " + requests);
    }
}
