package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.fs.StagingArea;

/**
 * Where locks fence the task states, an earlier instance's abandoned batch is removed only once it was seen unchanged
 * for the stale bound: an intent of it still under way in the lock window would otherwise land for a batch gone.
 */
class AbandonedStagingTest {

    private static final long BOUND_MS = 60_000;

    @TempDir
    Path dir;
    private final AtomicLong nanos = new AtomicLong(1_000);
    private AbandonedStaging abandoned;
    private final Set<String> committing = new java.util.HashSet<>();
    /** The task's durable intent, as a fresh read of its state gives it. */
    private Set<String> intent = Set.of("conn-t0-old-3");

    @BeforeEach
    void staging() throws IOException {
        StagingArea staging = new StagingArea(FileSystem.getLocal(new Configuration()),
                new org.apache.hadoop.fs.Path(dir.toUri()));
        abandoned = new AbandonedStaging(staging, "conn-t0-new", committing::contains, nanos::get);
    }

    @Test
    void anEarlierInstancesBatchGoesOnlyOnceSeenUnchangedForTheBound() throws IOException {
        stage("conn-t0-old-1", true);
        stage("conn-t0-old-2", false); // still being staged, or abandoned before its manifest
        stage("conn-t0-new-1", false); // this instance's, being committed
        committing.add("conn-t0-new-1");
        stage("conn-t0-old-3", true); // the durable intent's
        assertEquals(0, abandoned.sweep(() -> intent, BOUND_MS), "young: kept");
        assertTrue(abandoned.pending());
        later(BOUND_MS - 1);
        assertEquals(0, abandoned.sweep(() -> intent, BOUND_MS));
        stage("conn-t0-old-2", true); // its manifest came: seen anew
        later(1);
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS), "old-1 only");
        assertFalse(Files.exists(dir.resolve("conn-t0-old-1")));
        assertTrue(Files.exists(dir.resolve("conn-t0-old-2")), "its manifest is younger than the bound");
        later(BOUND_MS);
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS));
        assertTrue(Files.exists(dir.resolve("conn-t0-new-1")) && Files.exists(dir.resolve("conn-t0-old-3")),
                "this instance's batch under way and the intent's stay");
        committing.clear(); // given up by this instance: no write of it is under way
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS));
        assertFalse(Files.exists(dir.resolve("conn-t0-new-1")));
        assertTrue(abandoned.pending(), "the intent's batch is looked at again a bound later");
        intent = Set.of(); // its intent was given up (its batch's records are read again)
        later(BOUND_MS);
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS));
        assertFalse(Files.exists(dir.resolve("conn-t0-old-3")));
        assertFalse(abandoned.pending());
    }

    @Test
    void aBatchThisInstanceDroppedGoesAtTheNextSweepUnlessItsIntentIsDurable() throws IOException {
        assertFalse(abandoned.pending());
        stage("conn-t0-new-4", true); // staged, its intent not written (the metastore away), then dropped
        abandoned.givenUp();
        assertTrue(abandoned.pending(), "swept at the next offset commit");
        intent = Set.of("conn-t0-new-4");
        assertEquals(0, abandoned.sweep(() -> intent, BOUND_MS), "its intent landed after all: it is finished");
        assertTrue(Files.exists(dir.resolve("conn-t0-new-4")));
        intent = Set.of();
        abandoned.givenUp();
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS));
        assertFalse(Files.exists(dir.resolve("conn-t0-new-4")));
        assertFalse(abandoned.pending());
    }

    @Test
    void aLateIntentThatLandedMeanwhileKeepsItsBatch() throws IOException {
        stage("conn-t0-old-1", true);
        intent = Set.of();
        assertEquals(0, abandoned.sweep(() -> intent, BOUND_MS));
        later(BOUND_MS);
        intent = Set.of("conn-t0-old-1"); // its intent reached the metastore late, after the claim read the state
        assertEquals(0, abandoned.sweep(() -> intent, BOUND_MS));
        assertTrue(Files.exists(dir.resolve("conn-t0-old-1").resolve("_manifest.avro")), "to be rolled forward");
    }

    @Test
    void aSweepWhoseIntentReadFailedStaysDue() throws IOException {
        stage("conn-t0-new-5", true);
        abandoned.givenUp();
        assertThrows(RuntimeException.class, () -> abandoned.sweep(() -> {
            throw new IllegalStateException("injected: the metastore is away");
        }, BOUND_MS));
        assertTrue(abandoned.pending(), "tried again at the next offset commit");
        intent = Set.of();
        assertEquals(1, abandoned.sweep(() -> intent, BOUND_MS));
        assertFalse(abandoned.pending());
    }

    @Test
    void withCompareAndSetAnAbandonedBatchGoesAtOnce() throws IOException {
        stage("conn-t0-old-1", true);
        assertEquals(1, abandoned.sweep(Set::of, 0));
        assertFalse(abandoned.pending());
    }

    private void later(long ms) {
        nanos.addAndGet(ms * 1_000_000);
    }

    private void stage(String batch, boolean manifest) throws IOException {
        Path batchDir = Files.createDirectories(dir.resolve(batch).resolve("events"));
        Files.writeString(batchDir.resolve("part-" + batch + "-00001.avro"), "staged");
        if (manifest) {
            Files.writeString(dir.resolve(batch).resolve("_manifest.avro"), "manifest");
        }
    }
}
