package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreAnswerLostException;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metastore.MetastoreRefusedException;
import io.hivesink.metastore.MetastoreUnreachableException;
import io.hivesink.metastore.TableLock;

/**
 * Locks on task states where the metastore does not check compare-and-set, with Hive's semantics (the in-memory
 * metastore keeps locks until they are released, as a stock 3.1 metastore does): what a stopped worker, a lost
 * answer or a failed release leaves behind is broken or released, a live holder is not, and a writer whose lock was
 * broken does not write. The same runs on a real Hive 3.1.3 metastore in the integration tests.
 */
class StateLocksTest {

    private static final String INSTANCE = "conn-t0-new";
    private final InMemoryMetastore metastore = new InMemoryMetastore();

    @Test
    void locksLeftBehindByAStoppedWorkerAreBrokenOnceSilentForTheBound() {
        TableLock granted = metastore.requestExclusiveLock("db", "state_0", "hive-sink:conn-t0-killed");
        TableLock queued = metastore.requestExclusiveLock("db", "state_0", "hive-sink:conn-t1-killed");
        assertEquals(TableLock.State.ACQUIRED, granted.state());
        assertEquals(TableLock.State.WAITING, queued.state(), "queued behind the first: it blocks ours too");

        StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 300, 10_000);
        long started = System.nanoTime();
        long ours = locks.acquire("state_0");
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMs >= 300, "not before the bound: " + tookMs + " ms");
        assertEquals(List.of(ours), metastore.locksOn("db", "state_0").stream().map(TableLock::id).toList(),
                "both left-behind locks are gone; ours is granted");
        locks.release(ours);
        assertEquals(List.of(), metastore.locksOn("db", "state_0"));
    }

    @Test
    void aWriterGrantedAfterASilentLockAheadWentTakesItForBrokenAndAnotherDoesNot() throws Exception {
        for (long silentForMs : new long[] {800, 50}) {
            long silent = metastore.requestExclusiveLock("db", "state_" + silentForMs, "hive-sink:conn-t1-stuck").id();
            Thread breaker = new Thread(() -> { // another writer, waiting beside this one, breaks it
                if (Pause.of(silentForMs)) {
                    metastore.unlock(silent);
                }
            });
            breaker.start();
            StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 1_000, 10_000);
            locks.release(locks.acquire("state_" + silentForMs));
            breaker.join();
            assertEquals(silentForMs > 500, locks.brokenAt("state_" + silentForMs) >= 0,
                    "silent for " + silentForMs + " ms of a 1000 ms bound");
        }
    }

    @Test
    void aWaitingLockAheadThatNeverHeartbeatIsNotTakenForBroken() throws Exception {
        // a writer queued behind a live holder heartbeats only through its checks: nothing of it is under way
        long held = metastore.requestExclusiveLock("db", "state_w", "hive-sink:conn-t1-alive").id();
        long waiting = metastore.requestExclusiveLock("db", "state_w", "hive-sink:conn-t2-queued").id();
        try (Heartbeats alive = new Heartbeats(held)) {
            Thread done = new Thread(() -> {
                if (Pause.of(800)) {
                    metastore.unlock(waiting);
                    metastore.unlock(alive.lockId);
                }
            });
            done.start();
            StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 1_000, 10_000);
            locks.release(locks.acquire("state_w"));
            done.join();
            assertEquals(-1, locks.brokenAt("state_w"));
        }
    }

    @Test
    void aLockThatIsNotHiveSinksIsWaitedForAndNeverBroken() {
        // a Hive query's lock on a table: its client heartbeats it every few minutes, if at all
        TableLock query = metastore.lock("hive", "db", "orders", "hive_20261126_query");
        StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 200, 1_000);
        StateLocks.LockHeldException e = assertThrows(StateLocks.LockHeldException.class,
                () -> locks.acquire("orders"));
        assertTrue(e.getMessage().contains("held by lock " + query.id() + " of hive_20261126_query (hive@")
                && e.getMessage().contains("which is not hive-sink's (taken as user hive, in no transaction)")
                && e.getMessage().contains("HL_LOCK_EXT_ID = " + query.id())
                && !e.getMessage().contains("signs of life"), e.getMessage());
        assertTrue(e.foreign(), "only a lock that is not hive-sink's was ahead");
        assertEquals(List.of(query.id()), metastore.locksOn("db", "orders").stream().map(TableLock::id).toList(),
                "the query keeps its lock");
    }

    @Test
    void aStartingTaskWaitsOutALockThatIsNotHiveSinksAndStartsOnceItIsReleased() throws Exception {
        metastore.ignoreCompareAndSet = true; // as Hive 3.1: fencing falls to locks
        StateTables states = new StateTables(metastore, "db", new StateTables.Deployment("conn", "conn", "db"),
                "file:///staging/conn/state", INSTANCE, 100);
        states.readOrCreate(0);
        TaskRun run = new TaskRun("conn", "conn", 0, INSTANCE);
        // an operator's lock, as the one a new user met: its heartbeat never moves
        TableLock operator = metastore.lock("Unknown", "db", states.tableName(0), "ghost@dead-worker");

        org.apache.kafka.connect.errors.ConnectException refused = assertThrows(
                org.apache.kafka.connect.errors.ConnectException.class,
                () -> FencingProbe.settle(states, run, Fencing.AUTO, 0));
        assertTrue(refused.getMessage().contains("a lock that is not hive-sink's kept its state table")
                && refused.getMessage().contains("lock " + operator.id() + " of ghost@dead-worker")
                && refused.getMessage().contains("hive.metastore.lock.foreign.wait.ms")
                && !refused.getMessage().contains("signs of life")
                && !refused.getMessage().contains("another instance"), refused.getMessage());

        Thread operatorLetsGo = new Thread(() -> {
            sleep(1_500);
            metastore.unlock(operator.id());
        });
        operatorLetsGo.start();
        long started = System.nanoTime();
        assertEquals(Fencing.LOCKS, FencingProbe.settle(states, run, Fencing.AUTO, -1));
        operatorLetsGo.join();
        assertTrue((System.nanoTime() - started) / 1_000_000 >= 1_000, "it waited for the operator");
        assertEquals(List.of(), metastore.locksOn("db", states.tableName(0)), "its own lock released");
    }

    @Test
    void aCallThatFailsWhileAStartingTaskWaitsOutAForeignLockDoesNotEndTheWait() throws Exception {
        metastore.ignoreCompareAndSet = true;
        AtomicBoolean failOnce = new AtomicBoolean();
        Metastore blinking = Intercepted.before(metastore, (method, args) -> {
            if (method.equals("checkLock") && failOnce.compareAndSet(true, false)) {
                throw new MetastoreException("injected: the metastore blinked", null);
            }
        });
        StateTables states = new StateTables(blinking, "db", new StateTables.Deployment("conn", "conn", "db"),
                "file:///staging/conn/state", INSTANCE, 100);
        states.readOrCreate(0);
        TableLock operator = metastore.lock("Unknown", "db", states.tableName(0), "ghost@dead-worker");
        Thread blinkThenLetGo = new Thread(() -> {
            sleep(700);
            failOnce.set(true); // during the wait, after the foreign lock was seen
            sleep(1_500);
            metastore.unlock(operator.id());
        });
        blinkThenLetGo.start();
        assertEquals(Fencing.LOCKS, FencingProbe.settle(states, new TaskRun("conn", "conn", 0, INSTANCE),
                Fencing.LOCKS, -1));
        blinkThenLetGo.join();
        assertTrue(!failOnce.get(), "the blink happened during the wait");
    }

    @Test
    void aLockOfItsOwnInstanceThatItDoesNotHoldIsReleasedAtOnce() {
        // a grant whose answer was lost, or a release that failed while the metastore restarted
        metastore.requestExclusiveLock("db", "state_0", StateLocks.agentInfo(INSTANCE));
        StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 60_000, 10_000);
        long started = System.nanoTime();
        locks.release(locks.acquire("state_0"));
        assertTrue((System.nanoTime() - started) / 1_000_000 < 5_000, "released at once, not after the bound");
        assertEquals(List.of(), metastore.locksOn("db", "state_0"));
    }

    @Test
    void aLiveHolderIsNotBrokenAndTheWaitEndsSayingWhoHoldsItAndSince() throws Exception {
        long held = metastore.requestExclusiveLock("db", "state_0", "hive-sink:conn-t1-alive").id();
        try (Heartbeats alive = new Heartbeats(held)) {
            StateLocks locks = new StateLocks(metastore, "db", INSTANCE, 200, 1_500);
            StateLocks.LockHeldException e = assertThrows(StateLocks.LockHeldException.class,
                    () -> locks.acquire("state_0"));
            assertTrue(e.getMessage().contains("held by lock " + alive.lockId + " of hive-sink:conn-t1-alive")
                    && e.getMessage().contains("since "), e.getMessage());
            assertEquals(List.of(held), metastore.locksOn("db", "state_0").stream().map(TableLock::id).toList(),
                    "the live holder keeps its lock, and ours no longer waits");
        }
    }

    @Test
    void aWriterWhoseLockWasBrokenWhileItReadDoesNotWrite() {
        AtomicBoolean breakOnRead = new AtomicBoolean();
        // another writer took our lock for left behind and broke it between our read and our write
        Metastore breaking = Intercepted.after(metastore, (method, args) -> {
            if (breakOnRead.get() && method.equals("getTable")) {
                metastore.locksOn((String) args[0], (String) args[1]).forEach(lock -> metastore.unlock(lock.id()));
            }
        });
        StateTables states = lockedStates(breaking, 300);
        StateTables.Stored stored = states.readOrCreate(0);

        breakOnRead.set(true);
        assertNull(states.write(stored, NEXT), "not written: the write is refused as a conflict and read again");
        assertEquals(stored.version(), states.read(0).version(), "the stored state is untouched");
        breakOnRead.set(false);
        assertNotNull(states.write(stored, NEXT));
        assertEquals(NEXT, states.read(0).state());
    }

    @Test
    void aWriterWhoseLockWasBrokenWhileItsWriteWasUnderWayStopsFenced() {
        AtomicBoolean breakDuringWrite = new AtomicBoolean();
        // the write passed its heartbeat, then reached the metastore's database after another writer broke the lock
        Metastore late = Intercepted.after(metastore, (method, args) -> {
            if (breakDuringWrite.get() && method.equals("alterTableUnderLock")) {
                metastore.unlock((Long) args[0]);
            }
        });
        StateTables states = lockedStates(late, 300);
        StateTables.Stored stored = states.readOrCreate(0);

        breakDuringWrite.set(true);
        TaskFencedException e = assertThrows(LockBrokenException.class, () -> states.write(stored, NEXT));
        assertTrue(e.getMessage().contains("was broken by another writer while this instance's write")
                && e.getMessage().contains("hive.metastore.lock.stale.ms"), e.getMessage());
        breakDuringWrite.set(false);
        StateTables.Stored now = states.read(0);
        assertNotNull(states.write(now, NEXT.withIntent(null)), "a lock kept through the write: no alarm");
    }

    @Test
    void aWriteWhoseAnswerWasLostKeepsItsLockABoundAndStopsIfTheLockWasBroken() {
        AtomicBoolean loseAnswer = new AtomicBoolean();
        AtomicBoolean breakLock = new AtomicBoolean();
        // the write lands, its answer is lost (the connection broke); meanwhile another writer broke the lock, or not
        Metastore lossy = Intercepted.after(metastore, (method, args) -> {
            if (method.equals("alterTableUnderLock") && loseAnswer.getAndSet(false)) {
                if (breakLock.get()) {
                    metastore.unlock((Long) args[0]);
                }
                throw lostAnswer();
            }
        });
        StateTables states = lockedStates(lossy, 300);
        StateTables.Stored stored = states.readOrCreate(0);

        loseAnswer.set(true);
        long started = System.nanoTime();
        MetastoreException lost = assertThrows(MetastoreException.class, () -> states.write(stored, NEXT));
        assertTrue(lost.getMessage().contains("the answer was lost"),
                lost.getMessage());
        assertTrue((System.nanoTime() - started) / 1_000_000 >= 300, "the lock was held a bound after the failure");
        assertEquals(List.of(), metastore.locksOn("db", states.tableName(0)), "then released");

        StateTables.Stored now = states.read(0);
        loseAnswer.set(true);
        breakLock.set(true);
        LockBrokenException broken = assertThrows(LockBrokenException.class,
                () -> states.write(now, NEXT.withIntent(new TaskState.Intent("b1", "file:///m"))));
        assertTrue(broken.getMessage().contains("was broken by another writer after this instance's write"),
                broken.getMessage());
    }

    @Test
    void aHeartbeatThatFailsAfterALandedWriteIsTriedAgainAndABrokenLockStillStopsTheWriter() {
        AtomicBoolean written = new AtomicBoolean();
        AtomicBoolean breakLock = new AtomicBoolean();
        // the write landed; the heartbeat after it meets a metastore restarting, and another writer broke the lock
        Metastore restarting = Intercepted.around(metastore, (method, args) -> {
            if (method.equals("heartbeatLock") && written.getAndSet(false)) {
                if (breakLock.get()) {
                    metastore.unlock((Long) args[0]);
                }
                throw new MetastoreException("injected: connection reset", null);
            }
        }, (method, args) -> written.set(method.equals("alterTableUnderLock")));
        StateTables states = lockedStates(restarting, 300);
        StateTables.Stored stored = states.readOrCreate(0);
        assertNotNull(states.write(stored, NEXT), "the lock held: the second heartbeat says so");

        StateTables.Stored now = states.read(0);
        breakLock.set(true);
        LockBrokenException broken = assertThrows(LockBrokenException.class,
                () -> states.write(now, NEXT.withIntent(new TaskState.Intent("b1", "file:///m"))));
        assertTrue(broken.getMessage().contains("was broken by another writer while this instance's write"),
                broken.getMessage());
    }

    @Test
    void aWriteThatFailedBeforeItWasSentOrWasAnsweredReleasesItsLockAtOnce() {
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        Metastore failing = Intercepted.before(metastore, (method, args) -> {
            RuntimeException next = failure.get();
            if (method.equals("alterTableUnderLock") && next != null) {
                failure.set(null);
                throw next;
            }
        });
        StateTables states = lockedStates(failing, 60_000);
        StateTables.Stored stored = states.readOrCreate(0);
        for (RuntimeException e : List.of(
                new MetastoreUnreachableException("injected: no metastore answered the connection", null),
                new MetastoreException("injected: the metastore answered: deadlock found, try again", null),
                new MetastoreRefusedException("injected: the metastore answered: value too long", null))) {
            failure.set(e);
            long started = System.nanoTime();
            assertThrows(MetastoreException.class, () -> states.write(stored, NEXT));
            assertTrue((System.nanoTime() - started) / 1_000_000 < 5_000,
                    "nothing can land later: not held for the bound (" + e.getMessage() + ")");
            assertEquals(List.of(), metastore.locksOn("db", states.tableName(0)), "released");
        }
    }

    @Test
    void aWriterInterruptedWhileItHoldsItsLockAfterALostAnswerLeavesTheLockToGoStale() throws Exception {
        AtomicBoolean loseAnswer = new AtomicBoolean(true);
        Metastore lossy = Intercepted.after(metastore, (method, args) -> {
            if (method.equals("alterTableUnderLock") && loseAnswer.getAndSet(false)) {
                throw lostAnswer();
            }
        });
        StateTables states = lockedStates(lossy, 60_000);
        StateTables.Stored stored = states.readOrCreate(0);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                states.write(stored, NEXT);
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        });
        writer.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (loseAnswer.get() && System.nanoTime() < deadline) {
            sleep(10);
        }
        sleep(200); // holding the lock now
        writer.interrupt(); // the task stops
        writer.join(10_000);
        assertTrue(thrown.get() instanceof MetastoreAnswerLostException, String.valueOf(thrown.get()));
        assertEquals(1, metastore.locksOn("db", states.tableName(0)).size(),
                "kept: the write may still land; it is broken a bound after its last heartbeat");
    }

    @Test
    void aTaskStartsOnLocksPastALockLeftOnItsStateAndSaysWhoHoldsALiveOne() {
        metastore.ignoreCompareAndSet = true; // as Hive 3.1: fencing falls to locks
        StateTables.Deployment deployment = new StateTables.Deployment("conn", "conn", "db");
        StateTables states = new StateTables(metastore, "db", deployment, "file:///staging/conn/state", INSTANCE,
                300);
        states.readOrCreate(0);
        metastore.requestExclusiveLock("db", states.tableName(0), "hive-sink:conn-t0-killed");
        assertNull(states.lockProblem(0), "the lock left behind by a killed worker is broken");

        long live = metastore.requestExclusiveLock("db", states.tableName(0), "hive-sink:conn-t0-other").id();
        try (Heartbeats alive = new Heartbeats(live)) {
            StateTables.LockProblem problem = new StateTables(metastore, "db", deployment,
                    "file:///staging/conn/state", INSTANCE, 1_000).lockProblem(0);
            assertTrue(problem.held() && problem.message().contains("held by lock " + alive.lockId),
                    problem.toString());
        }
        metastore.locksWork = false;
        StateTables.LockProblem noApi = states.lockProblem(0);
        assertTrue(!noApi.held() && noApi.message().contains("no transaction tables"), noApi.toString());
    }

    @Test
    void theAgentInfoFitsTheMetastoresColumnAndKeepsTheInstancesUniqueEnd() {
        String instance = "a".repeat(300) + "-t7-lq2x3k-9z";
        String info = StateLocks.agentInfo(instance);
        assertEquals(StateLocks.MAX_AGENT_INFO, info.length());
        assertTrue(info.startsWith("hive-sink:~") && info.endsWith("-t7-lq2x3k-9z"), info);
        assertEquals("hive-sink:" + INSTANCE, StateLocks.agentInfo(INSTANCE));
    }

    private static final TaskState NEXT = new TaskState(INSTANCE, Map.of(new TopicPartition("events", 0),
            new TaskState.PartitionState(5, true)), null, null);

    /** States of a task fenced by locks, on {@code metastore} behind whatever a test put around it. */
    private static StateTables lockedStates(Metastore metastore, long staleAfterMs) {
        StateTables states = new StateTables(metastore, "db", new StateTables.Deployment("conn", "conn", "db"),
                "file:///staging/conn/state", INSTANCE, staleAfterMs);
        states.use(Fencing.LOCKS);
        return states;
    }

    private static MetastoreAnswerLostException lostAnswer() {
        return new MetastoreAnswerLostException("injected: the answer was lost",
                new org.apache.thrift.transport.TTransportException("connection reset"));
    }

    /** A live holder: heartbeats its lock every 30 ms until closed. */
    private final class Heartbeats implements AutoCloseable {
        private final AtomicBoolean alive = new AtomicBoolean(true);
        private final Thread thread;
        final long lockId;

        Heartbeats(long lockId) {
            this.lockId = lockId;
            thread = new Thread(() -> {
                while (alive.get() && metastore.heartbeatLock(lockId)) {
                    sleep(30);
                }
            });
            thread.start();
        }

        @Override
        public void close() {
            alive.set(false);
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
