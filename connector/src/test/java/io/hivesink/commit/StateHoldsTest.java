package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.hivesink.commit.TaskState.Hold;
import io.hivesink.metastore.InMemoryMetastore;

/** A compaction's holds in every task's state, on both fencing modes. */
class StateHoldsTest {

    private static final Hold HOLD = new Hold("orders", "day=2026-11-29", "compact-c-1", null);
    private static final Hold RELEASED = new Hold("orders", "day=2026-11-29", "compact-c-1", "hdfs://nn/p/k1");

    private InMemoryMetastore metastore;
    private java.util.function.Consumer<Table> beforeLock = stored -> { };
    private StateTables states;

    private StateHolds holds(Fencing fencing) {
        metastore = new InMemoryMetastore() {
            @Override
            public synchronized io.hivesink.metastore.TableLock requestExclusiveLock(String database, String table,
                    String agentInfo) {
                beforeLock.accept(tables.get(database + "." + table)); // where locks fence: just before the lock
                return super.requestExclusiveLock(database, table, agentInfo);
            }
        };
        metastore.ignoreCompareAndSet = fencing == Fencing.LOCKS; // as Hive 3.1
        states = new StateTables(metastore, "db", new StateTables.Deployment("conn", "conn", "db"), "file:/s",
                "conn-t9-compactor", 60_000);
        states.use(fencing);
        for (int task = 0; task < 3; task++) {
            states.readOrCreate(task);
        }
        return new StateHolds(states);
    }

    private TaskState state(int task) {
        return states.read(task).state();
    }

    private void set(int task, TaskState state) {
        StateTables.Stored current = states.read(task);
        assertTrue(states.write(current, state) != null);
    }

    @ParameterizedTest
    @EnumSource(value = Fencing.class, names = {"COMPARE_AND_SET", "LOCKS"})
    void aHoldGoesIntoEveryStateAndNamesTheBatchesInFlight(Fencing fencing) {
        StateHolds holds = holds(fencing);
        TaskState.Intent inFlight = new TaskState.Intent("conn-t1-x-7", "/staging/m.avro");
        set(1, state(1).withIntent(inFlight));
        boolean[] bumped = {false};
        java.util.function.Consumer<Table> taskWritesFirst = stored -> { // once: the hold is made again
            if (!bumped[0] && stored.getTableName().endsWith("_2")) {
                bumped[0] = true;
                StateParameters.encode(StateParameters.decode(2, stored).state()
                        .withIntent(new TaskState.Intent("conn-t2-y-3", "/staging/n.avro")), stored.getParameters());
                bumpVersion(stored);
            }
        };
        metastore.beforeConditionalWrite = taskWritesFirst;
        beforeLock = taskWritesFirst;

        StateHolds.Held held = holds.hold(HOLD);

        assertTrue(held.held());
        assertTrue(bumped[0]);
        assertEquals(Map.of(1, inFlight, 2, new TaskState.Intent("conn-t2-y-3", "/staging/n.avro")), held.intents());
        for (int task = 0; task < 3; task++) {
            assertEquals(List.of(HOLD), state(task).holds(), "task " + task);
        }
        assertEquals(inFlight, state(1).intent(), "the state's own lines are kept");
        assertTrue(holds.hold(HOLD).held(), "made again after a crash: the same holds");

        holds.release(RELEASED);
        for (int task = 0; task < 3; task++) {
            assertEquals(List.of(RELEASED), state(task).holds(), "task " + task);
        }
        holds.remove("orders", "day=2026-11-29", "compact-c-1");
        assertEquals(List.of(RELEASED), state(0).holds(), "a released hold goes only by its own task");
    }

    @ParameterizedTest
    @EnumSource(value = Fencing.class, names = {"COMPARE_AND_SET", "LOCKS"})
    void aSecondCompactionOfThePartitionGivesUpAndLeavesNothing(Fencing fencing) {
        StateHolds holds = holds(fencing);
        holds.hold(HOLD);
        Hold second = new Hold("orders", "day=2026-11-29", "compact-c-2", null);
        assertFalse(holds.hold(second).held());
        for (int task = 0; task < 3; task++) {
            assertEquals(List.of(HOLD), state(task).holds(), "task " + task);
        }

        // an earlier compaction's released hold that task 2's writers do not know yet: the new one backs out
        holds.remove("orders", "day=2026-11-29", "compact-c-1");
        set(2, state(2).withHold(RELEASED));
        assertFalse(holds.hold(second).held());
        assertNull(state(0).holdOn("orders", "day=2026-11-29"));
        assertNull(state(1).holdOn("orders", "day=2026-11-29"));
        assertEquals(List.of(RELEASED), state(2).holds());
        assertTrue(holds.hold(new Hold("orders", "day=2026-11-28", "compact-c-3", null)).held(),
                "another partition is free");
    }

    @ParameterizedTest
    @EnumSource(value = Fencing.class, names = {"COMPARE_AND_SET", "LOCKS"})
    void aTaskStartedWhileTheHoldsGoInIsHeldToo(Fencing fencing) {
        StateHolds holds = holds(fencing);
        boolean[] started = {false};
        java.util.function.Consumer<Table> raise = stored -> { // tasks.max raised: task 3 starts meanwhile
            if (!started[0] && stored.getTableName().endsWith("_1")) {
                started[0] = true;
                states.readOrCreate(3);
            }
        };
        metastore.beforeConditionalWrite = raise;
        beforeLock = raise;
        assertTrue(holds.hold(HOLD).held());
        assertTrue(started[0]);
        for (int task : List.of(0, 1, 2, 3)) {
            assertEquals(List.of(HOLD), state(task).holds(), "task " + task);
        }
    }

    /** Another instance broke a lock on the task's state table at {@code at}, and stamped it there. */
    private void lockBrokenAt(int task, long at) {
        metastore.tables.get("db." + states.tableName(task)).getParameters().put(StateTables.LOCK_BROKEN_AT,
                Long.toString(at));
    }

    @ParameterizedTest
    @EnumSource(value = Fencing.class, names = {"COMPARE_AND_SET", "LOCKS"})
    void aLockBrokenLatelyMakesTheHoldsBeCheckedAgainOnlyWhereLocksFence(Fencing fencing) {
        StateHolds holds = holds(fencing);
        lockBrokenAt(2, System.currentTimeMillis() - 10_000);
        StateHolds.Held held = holds.hold(HOLD);
        if (fencing == Fencing.LOCKS) {
            assertTrue(held.recheck());
            assertTrue(held.recheckInMs() > 40_000 && held.recheckInMs() <= 50_000,
                    "one stale bound (60 s) after the break, 10 s ago: " + held.recheckInMs());
        } else {
            assertFalse(held.recheck(), "compare-and-set: no write lands late");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Fencing.class, names = {"COMPARE_AND_SET", "LOCKS"})
    void aLockBrokenMoreThanABoundAgoCostsNothing(Fencing fencing) {
        StateHolds holds = holds(fencing);
        lockBrokenAt(1, System.currentTimeMillis() - 61_000);
        StateHolds.Held held = holds.hold(HOLD);
        assertEquals(fencing == Fencing.LOCKS ? 0 : StateHolds.Held.NO_RECHECK, held.recheckInMs(),
                "no wait; where locks fence, the holds are read again at once all the same");
        assertEquals(fencing == Fencing.LOCKS, held.recheck());
    }

    @org.junit.jupiter.api.Test
    void theCheckFindsAHoldALateWriteErasedAndIntentsNotNotedBefore() {
        StateHolds holds = holds(Fencing.LOCKS);
        Map<String, String> beforeHold = new java.util.HashMap<>(
                metastore.tables.get("db." + states.tableName(2)).getParameters());
        StateHolds.Held held = holds.hold(HOLD);
        assertEquals(new StateHolds.Held(true, Map.of(), StateHolds.Held.NO_RECHECK), holds.recheck(HOLD, held),
                "nothing changed");

        TaskState.Intent late = new TaskState.Intent("conn-t1-x-8", "/staging/m8.avro");
        set(1, state(1).withIntent(late));
        assertEquals(new StateHolds.Held(true, Map.of(1, late), StateHolds.Held.NO_RECHECK), holds.recheck(HOLD, held),
                "an intent beside the hold, to wait for");

        metastore.tables.get("db." + states.tableName(2)).setParameters(beforeHold); // the late write lands
        assertFalse(holds.recheck(HOLD, held).held(), "task 2's writers no longer know the hold");
    }

    @org.junit.jupiter.api.Test
    void aLateWriteThatErasesTheStampOfItsBreakDuringTheHoldsStillSetsTheWait() {
        StateHolds holds = holds(Fencing.LOCKS);
        String task1 = "db." + states.tableName(1);
        Map<String, String> asItRead = new java.util.HashMap<>(metastore.tables.get(task1).getParameters());
        lockBrokenAt(1, System.currentTimeMillis()); // the holder of task 1's lock, broken just now
        boolean[] landed = {false};
        java.util.function.Consumer<Table> lateWrite = stored -> { // its write lands as the hold of task 2 goes in
            if (!landed[0] && stored.getTableName().endsWith("_2")) {
                landed[0] = true;
                metastore.tables.get(task1).setParameters(new java.util.HashMap<>(asItRead)); // no hold, no stamp
            }
        };
        beforeLock = lateWrite;
        StateHolds.Held held = holds.hold(HOLD);
        assertTrue(landed[0]);
        assertTrue(held.recheckInMs() > 50_000, "the break the hold write of task 1 saw: " + held.recheckInMs());
        assertFalse(holds.recheck(HOLD, held).held(), "and the check finds the hold gone");
    }

    @org.junit.jupiter.api.Test
    void theCheckRequiresTheHoldUnreleasedAndInAStateMadeSince() {
        StateHolds holds = holds(Fencing.LOCKS);
        StateHolds.Held held = holds.hold(HOLD);
        states.readOrCreate(3); // tasks.max raised after the holds: task 3 has not copied task 0's yet
        assertFalse(holds.recheck(HOLD, held).held(), "a state without the hold");
        set(3, state(3).withHold(HOLD));
        assertTrue(holds.recheck(HOLD, held).held());
        set(1, state(1).withHold(RELEASED));
        assertFalse(holds.recheck(HOLD, held).held(), "released: not this compaction's step 3 any more");
    }

    /** Another writer's turn: the version moves on. */
    private static void bumpVersion(Table stored) {
        String version = stored.getParameters().get(StateTables.VERSION);
        int colon = version.indexOf(':');
        long counter = Long.parseLong(colon < 0 ? version : version.substring(0, colon));
        stored.getParameters().put(StateTables.VERSION, (counter + 1) + ":conn-t2-other:1");
    }
}
