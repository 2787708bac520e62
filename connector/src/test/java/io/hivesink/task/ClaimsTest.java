package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreUnreachableException;

/** Claiming assigned topic-partitions: at once, or paused and tried again while the metastore cannot take it. */
class ClaimsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Metastore flaky = (Metastore) Proxy.newProxyInstance(Metastore.class.getClassLoader(),
            new Class<?>[] {Metastore.class}, (proxy, method, args) -> {
                if (down.get()) {
                    throw new MetastoreUnreachableException("Cannot connect to the Hive metastore (down)", null);
                }
                try {
                    return method.invoke(metastore, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    private PartsRig rig;

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, flaky, now::get);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private Claims claims(TaskParts parts) {
        AssignmentPauses pauses = rig.pauses();
        return new Claims(parts.committer(), new OffsetsAhead(LogOffsets.of(rig.context), false, parts.committer(),
                rig.metrics(parts)), new PostponedClaims(pauses, now::get, 60_000),
                new TakenPartitions(pauses, now::get), pauses, new Probation(pauses, now::get));
    }

    @Test
    void anAssignmentIsClaimedWithTheOffsetsCommittedForIt() {
        TaskParts first = rig.task(0);
        first.committer().claim(List.of(P0));
        rig.take(first, P0, 0, 3);
        first.committer().commit(first.buffer().drain());

        Claims.Claimed claimed = claims(rig.task(0)).claim(List.of(P0));
        assertEquals(Set.of(P0), claimed.partitions());
        assertEquals(Map.of(P0, 3L), claimed.committed(), "where the next instance resumes");
    }

    @Test
    void aClaimTheMetastoreCannotTakeWaitsPausedAndIsTriedAgainWhenDue() {
        Claims claims = claims(rig.task(0));
        down.set(true);
        assertNull(claims.claim(rig.context.assign(P0)), "put off");
        assertEquals(Set.of(P0), claims.waiting());
        assertEquals(List.of(Set.of(P0)), rig.context.pauses, "its records wait in Kafka");
        assertFalse(claims.postponedDue());
        assertEquals(1_000, claims.msUntilNextTry());

        down.set(false);
        now.addAndGet(1_000);
        assertTrue(claims.postponedDue());
        Claims.Claimed claimed = claims.claimPostponed();
        assertEquals(Set.of(P0), claimed.partitions());
        assertEquals(Set.of(), claims.waiting());
        assertEquals(List.of(Set.of(P0)), rig.context.resumes, "and resumed");
    }
}
