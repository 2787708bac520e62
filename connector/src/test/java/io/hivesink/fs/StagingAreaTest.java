package io.hivesink.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's start probes its staging directory under one name, so that a start killed inside its probe leaves nothing
 * the next start does not remove (S3StorageIT checks the same on S3, with the probe's upload).
 */
class StagingAreaTest {

    @TempDir
    Path dir;

    @Test
    void theProbeFileAKilledStartLeftIsRemovedByTheNextStartAndIsNoBatch() throws IOException {
        Files.write(dir.resolve(StagingArea.PROBE_NAME), new byte[] {1, 2, 3}); // killed between write and delete
        Files.createFile(dir.resolve("_probe-0f8fad5b-d9cb-469f-a165-70867728950e")); // an earlier release's
        Files.createDirectories(dir.resolve("conn-t0-a-1"));
        Files.createDirectories(dir.resolve("_probe_orders-t0-b-1")); // a batch of connector _probe_orders
        StagingArea staging = new StagingArea(FileSystem.getLocal(new Configuration()),
                new org.apache.hadoop.fs.Path(dir.toUri()));

        staging.prepare("the test's user");

        assertFalse(Files.exists(dir.resolve(StagingArea.PROBE_NAME)), "replaced and removed by the probe");
        assertTrue(Files.exists(dir.resolve("conn-t0-a-1")), "a batch is no probe's business");
        assertEquals(Map.of("conn-t0-a-1", false, "_probe_orders-t0-b-1", false), staging.stagedBatches());
    }
}
