package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.task.TaskParts;

/**
 * The probation of a claim made where locks fence the states (Hive 3.1): a write sent under a lock that a claimer
 * broke lands after the claim (the metastore's own retries, a slow network) and puts back the state its holder read.
 * The claimer takes no record of the partitions it took from a state whose lock was broken less than a bound ago,
 * checks its claim a bound after the break, and claims again what was undone. The late write is played by putting the
 * holder's state back as it was before the claim.
 */
class ClaimProbationTest {

    private static final Schema EVENT = SchemaBuilder.struct().name("Event").field("id", Schema.INT64_SCHEMA)
            .field("kind", Schema.STRING_SCHEMA).build();
    private static final TopicPartition EVENTS_0 = new TopicPartition("events", 0);
    private static final TopicPartition EVENTS_1 = new TopicPartition("events", 1);
    private static final long BOUND_MS = 1_000; // the least the key allows
    private static final AtomicLong INSTANCES = new AtomicLong();

    @TempDir
    Path dir;
    private InMemoryMetastore metastore;

    @BeforeEach
    void lockedMetastore() {
        metastore = new InMemoryMetastore();
        metastore.ignoreCompareAndSet = true; // as Hive 3.1: locks fence the states
    }

    @Test
    void aLateIntentThatUndoesAClaimIsRolledForwardByTheClaimAgainAndNothingLandsTwice() throws Exception {
        Task zombie = started(1);
        zombie.committer.claim(List.of(EVENTS_0));
        zombie.feed(EVENTS_0, 0, 3);
        zombie.commit();
        Map<String, String> beforeIntent = zombie.stateParameters();
        zombie.feed(EVENTS_0, 3, 6);
        zombie.crashAt = FaultPoint.INTENT_DURABLE;
        assertThrows(ExactlyOnceCommitterTest.SimulatedCrash.class, zombie::commit);
        Map<String, String> withIntent = zombie.stateParameters();
        zombie.putStateParameters(beforeIntent); // the intent's write is still under way
        zombie.silentLock();

        Task claimer = started(0);
        assertEquals(Map.of(EVENTS_0, 3L), claimer.committer.claim(List.of(EVENTS_0)), "its lock broken, released");
        ProbationTerm term = claimer.committer.probation().get(EVENTS_0);
        assertTrue(term != null && term.msLeft() > 0 && term.msLeft() <= BOUND_MS, "on probation: " + term);

        zombie.putStateParameters(withIntent); // the late write lands, over the release
        Thread.sleep(term.msLeft());
        Recheck recheck = claimer.committer.recheck(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), recheck.undone(), recheck.toString());

        assertEquals(Map.of(EVENTS_0, 6L), claimer.committer.claim(List.of(EVENTS_0)),
                "claimed again: the late intent's batch is rolled forward, and the task resumes after it");
        claimer.feed(EVENTS_0, 6, 9);
        claimer.commit();
        assertEquals(ids(EVENTS_0, 9), landedIds(), "each record once");
    }

    @Test
    void aClaimThatNoLateWriteUndidPassesItsCheckAtTheCommittedOffsets() throws Exception {
        Task zombie = started(1);
        zombie.committer.claim(List.of(EVENTS_0, EVENTS_1));
        zombie.feed(EVENTS_0, 0, 3);
        zombie.commit();
        zombie.silentLock();

        Task claimer = started(0);
        claimer.committer.claim(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), claimer.committer.probation().keySet());
        Thread.sleep(claimer.committer.probation().get(EVENTS_0).msLeft());
        Recheck recheck = claimer.committer.recheck(List.of(EVENTS_0));
        assertEquals(new Recheck(Set.of(EVENTS_0), Set.of(), Set.of(), Map.of(EVENTS_0, 3L)), recheck);
    }

    @Test
    void aClaimerThatBrokeNothingWaitsWhenAnotherBrokeTheLockLately() {
        silentAfterClaiming(2, EVENTS_0, EVENTS_1); // the zombie
        Task breaker = started(0);
        breaker.committer.claim(List.of(EVENTS_1));
        assertEquals(Set.of(EVENTS_1), breaker.committer.probation().keySet());

        Task next = started(1);
        next.committer.claim(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), next.committer.probation().keySet(),
                "the zombie's late write would undo this release as much as the breaker's");
    }

    @Test
    void noLockBrokenMeansNoProbation() {
        Task earlier = started(1);
        earlier.committer.claim(List.of(EVENTS_0));
        Task claimer = started(0);
        assertEquals(Map.of(), claimer.committer.claim(List.of(EVENTS_0)));
        assertEquals(Map.of(), claimer.committer.probation(), "a rebalance between live tasks takes records at once");

        Task restarted = started(0);
        restarted.committer.claim(List.of(EVENTS_0));
        assertEquals(Map.of(), restarted.committer.probation(), "nor does a restart whose instance let go");
    }

    @Test
    void aLockBrokenLongerThanABoundAgoCostsNothing() throws Exception {
        silentAfterClaiming(1, EVENTS_0, EVENTS_1); // the zombie
        started(0).committer.claim(List.of(EVENTS_1));
        Thread.sleep(BOUND_MS + 50);
        Task claimer = started(2);
        claimer.committer.claim(List.of(EVENTS_0));
        assertEquals(Map.of(), claimer.committer.probation());
    }

    @Test
    void anEarlierInstanceWhoseLateWriteTookTheStateBackIsDisplacedAgainAndANewerOneFencesThisOne() throws Exception {
        Task earlier = started(0);
        earlier.committer.claim(List.of(EVENTS_0));
        earlier.feed(EVENTS_0, 0, 3);
        earlier.commit();
        Map<String, String> earlierState = earlier.stateParameters();
        earlier.silentLock();

        Task current = started(0); // breaks the earlier instance's lock at its start, and records it on the state
        current.committer.claim(List.of(EVENTS_0));
        ProbationTerm term = current.committer.probation().get(EVENTS_0);
        assertTrue(term != null, "a claim of its own state, whose lock it broke, waits");

        earlier.putStateParameters(earlierState); // its late write: it owns the task's state again
        Thread.sleep(term.msLeft());
        assertEquals(Set.of(EVENTS_0), current.committer.recheck(List.of(EVENTS_0)).undone());
        assertEquals(Map.of(EVENTS_0, 3L), current.committer.claim(List.of(EVENTS_0)));

        Task newer = started(0);
        newer.committer.claim(List.of(EVENTS_0));
        assertThrows(TaskFencedException.class, () -> current.committer.recheck(List.of(EVENTS_0)),
                "a newer instance claimed it since: this one is the zombie");
    }

    @Test
    void aLaterClaimOfTheSameRunFindsTheEarlierInstanceBackAndClaimsAgainRatherThanStop() throws Exception {
        Task earlier = started(0);
        earlier.committer.claim(List.of(EVENTS_0, EVENTS_1));
        Map<String, String> earlierState = earlier.stateParameters();
        earlier.silentLock();
        Task current = started(0);
        current.committer.claim(List.of(EVENTS_0));
        current.committer.claim(List.of(EVENTS_1)); // assigned later, within the bound: on probation too
        ProbationTerm term = current.committer.probation().get(EVENTS_1);
        assertTrue(term != null);

        earlier.putStateParameters(earlierState);
        Thread.sleep(term.msLeft());
        assertEquals(Set.of(EVENTS_1), current.committer.recheck(List.of(EVENTS_1)).undone(),
                "undone by the earlier instance's late write, not fenced by a newer one");
    }

    @Test
    void aNewerInstanceWhoseStateHoldsAnOlderClaimVersionStillFencesThisOne() {
        silentAfterClaiming(0, EVENTS_0); // the earlier instance
        Task current = started(0);
        current.committer.claim(List.of(EVENTS_0));
        assertTrue(current.committer.probation().containsKey(EVENTS_0));

        Task newer = started(0); // Connect started the task again elsewhere: this one is the zombie
        newer.committer.claim(List.of(EVENTS_0));
        Map<String, String> state = newer.stateParameters(); // as an older build, or an earlier late write, leaves it
        state.put(StateTables.CLAIM_VERSION, "1");
        newer.putStateParameters(state);
        assertThrows(TaskFencedException.class, () -> current.committer.recheck(List.of(EVENTS_0)),
                "not an instance this one displaced: fenced, whatever its claim version");
    }

    @Test
    void aPartitionALateWriteDroppedFromThisTasksStateIsClaimedAgainNotTakenForLost() {
        silentAfterClaiming(1, EVENTS_0); // the zombie
        Task claimer = started(0);
        claimer.committer.claim(List.of(EVENTS_0));
        // a late write of this task's state, from a read before the claim: events-0 owned by nobody
        Map<String, String> state = claimer.stateParameters();
        Table table = metastore.tables.get("db.hive_sink_state_conn_0");
        StateParameters.encode(StateParameters.decode(0, table).state().released(List.of(EVENTS_0)), state);
        claimer.putStateParameters(state);
        Recheck recheck = claimer.committer.recheck(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), recheck.undone(), recheck.toString());
    }

    @Test
    void aBreakAtTheStartIsOnTheStateBeforeAnotherTaskClaimsFromIt() {
        silentAfterClaiming(0, EVENTS_0); // the earlier instance
        started(0); // the new instance of task 0 breaks the lock at its start, and claims nothing yet

        Task other = started(1);
        other.committer.claim(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), other.committer.probation().keySet(),
                "the earlier instance's late write would undo this claim too");
    }

    @Test
    void aBreakDuringTheClaimsOwnWriteIsItsProbation() {
        Task earlier = started(0);
        earlier.committer.claim(List.of(EVENTS_0));
        Task current = started(0); // nothing to break yet
        earlier.silentLock(); // the earlier instance, stuck inside a write of the state
        current.committer.claim(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), current.committer.probation().keySet());
    }

    @Test
    void aPartitionAnotherTaskClaimedDuringTheProbationIsLost() throws Exception {
        silentAfterClaiming(2, EVENTS_0); // the zombie
        Task claimer = started(0);
        claimer.committer.claim(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), claimer.committer.probation().keySet());

        started(1).committer.claim(List.of(EVENTS_0)); // a rebalance moved it on
        Recheck recheck = claimer.committer.recheck(List.of(EVENTS_0));
        assertEquals(Set.of(EVENTS_0), recheck.lost(), recheck.toString());
    }

    @Test
    void theBreakIsRecordedOnTheStateEvenWhenTheBreakersOwnWriteFindsItChanged() {
        Task zombie = started(1);
        zombie.committer.claim(List.of(EVENTS_0));
        StateTables.Stored read = zombie.states().read(1);
        zombie.silentLock();
        Map<String, String> moved = zombie.stateParameters(); // another writer's turn: the version moves on
        moved.put(StateTables.VERSION, "99:other:1");
        zombie.putStateParameters(moved);

        StateTables breaker = started(0).states();
        assertNull(breaker.write(read, read.state().released(List.of(EVENTS_0))), "a conflict: read again");
        Map<String, String> stamped = metastore.tables.get("db.hive_sink_state_conn_1").getParameters();
        assertTrue(stamped.containsKey(StateTables.LOCK_BROKEN_AT), "the break is on the state for the next reader");
        assertEquals(100, StateTables.counter(stamped.get(StateTables.VERSION)), "a version of its own, counted on");
    }

    /** An instance that claimed {@code partitions}, then went silent holding the lock on its state. */
    private Task silentAfterClaiming(int task, TopicPartition... partitions) {
        Task t = started(task);
        t.committer.claim(List.of(partitions));
        t.silentLock();
        return t;
    }

    private Task started(int task) {
        Task t = new Task(task);
        assertEquals(Fencing.LOCKS, t.committer.start(Fencing.AUTO));
        return t;
    }

    private static List<Long> ids(TopicPartition tp, long end) {
        List<Long> ids = new ArrayList<>();
        for (long offset = 0; offset < end; offset++) {
            ids.add(tp.partition() * 1_000_000L + offset);
        }
        return ids;
    }

    /** Every id in the events table's registered partitions, sorted: a record landed twice shows up twice. */
    private List<Long> landedIds() throws IOException {
        List<Long> ids = new ArrayList<>();
        for (String partition : metastore.partitionNames("db", "events")) {
            try (Stream<Path> files = Files.list(dir.resolve("warehouse/db.db/events/" + partition))) {
                for (Path file : files.filter(p -> p.toString().endsWith(".avro")).toList()) {
                    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file.toFile(),
                            new GenericDatumReader<>())) {
                        reader.forEach(r -> ids.add((Long) r.get("id")));
                    }
                }
            }
        }
        return ids.stream().sorted().toList();
    }

    /** One task instance on the shared directory and metastore, its states fenced by locks with a short bound. */
    private final class Task {
        final int task;
        final String instance;
        final BatchBuffer buffer;
        final ExactlyOnceCommitter committer;
        private final TaskParts parts;
        /** Where this instance's next commit stops, as a crash there would: nowhere if null. */
        volatile FaultPoint crashAt;

        Task(int task) {
            this.task = task;
            Map<String, String> props = ExactlyOnceCommitterTest.props(dir, task);
            props.put("hive.metastore.lock.stale.ms", Long.toString(BOUND_MS));
            long startedAt = 1_700_000_000_000L + INSTANCES.incrementAndGet();
            try {
                parts = TaskParts.build(props, FileSystem.getLocal(new Configuration()), metastore,
                        ForkJoinPool.commonPool(), point -> {
                            if (point == crashAt) {
                                throw new ExactlyOnceCommitterTest.SimulatedCrash();
                            }
                        }, () -> startedAt);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            buffer = parts.buffer();
            committer = parts.committer();
            instance = parts.run().instance();
        }

        StateTables states() {
            return parts.metastore().states();
        }

        void feed(TopicPartition tp, long from, long to) {
            for (long offset = from; offset < to; offset++) {
                Struct value = new Struct(EVENT).put("id", tp.partition() * 1_000_000L + offset)
                        .put("kind", offset % 2 == 0 ? "a" : "b");
                buffer.add(new SinkRecord(tp.topic(), tp.partition(), null, null, EVENT, value, offset), 0);
            }
        }

        void commit() {
            committer.commit(buffer.drain());
        }

        Map<String, String> stateParameters() {
            return new HashMap<>(metastore.tables.get(stateTable()).getParameters());
        }

        void putStateParameters(Map<String, String> params) {
            metastore.tables.get(stateTable()).setParameters(new HashMap<>(params));
        }

        /** A lock on its state that nobody heartbeats: this instance stopped, or is stuck, inside a locked write. */
        void silentLock() {
            metastore.requestExclusiveLock("db", "hive_sink_state_conn_" + task, StateLocks.agentInfo(instance));
        }

        private String stateTable() {
            return "db.hive_sink_state_conn_" + task;
        }
    }
}
