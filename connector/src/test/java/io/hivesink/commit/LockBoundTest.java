package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreException;

/** The stale bound of state locks is above the metastore's own retry budget unless the user set it lower. */
class LockBoundTest {

    private static final TaskRun RUN = new TaskRun("conn", "conn", 0, "conn-t0-x");
    private final InMemoryMetastore metastore = new InMemoryMetastore();

    @Test
    void unsetItIsThreeRetryBudgetsAndAtLeastAMinute() {
        assertEquals(60_000, LockBound.settle(metastore, 0, RUN).ms(), "Hive 3.1's defaults: 10 x 2 s, three times");
        metastore.settings.put("metastore.hmshandler.retry.attempts", "30");
        metastore.settings.put("metastore.hmshandler.retry.interval", "3s");
        assertEquals(270_000, LockBound.settle(metastore, 0, RUN).ms());
        metastore.settings.clear();
        metastore.settings.put("hive.hmshandler.retry.attempts", "20"); // a 2.x name
        metastore.settings.put("hive.hmshandler.retry.interval", "2000ms");
        assertEquals(120_000, LockBound.settle(metastore, 0, RUN).ms());
        metastore.settings.put("metastore.hmshandler.retry.attempts", "not a number");
        assertEquals(60_000, LockBound.settle(metastore, 0, RUN).ms(), "unreadable: Hive's defaults");
        assertTrue(LockBound.settle(metastore, 0, RUN).final_(), "for good: asking again gives the same");
    }

    @Test
    void derivedItStopsAtFiveMinutesAndAWriteWaitsForItsLockTheBoundAnd20sAtMost() {
        metastore.settings.put("metastore.hmshandler.retry.attempts", "10");
        metastore.settings.put("metastore.hmshandler.retry.interval", "20s");
        assertEquals(300_000, LockBound.settle(metastore, 0, RUN).ms());
        assertEquals(80_000, StateLocks.waitMs(60_000), "a claim's four tries stay inside the poll interval");
        assertEquals(30_000, StateLocks.waitMs(10_000));
    }

    @Test
    void setItIsKeptEvenBelowTheBudget() {
        assertEquals(5_000, LockBound.settle(metastore, 5_000, RUN).ms());
    }

    @Test
    void hiveDurationsAreRead() {
        assertEquals(2_000, LockBound.durationMs("2000"));
        assertEquals(2_000, LockBound.durationMs("2000ms"));
        assertEquals(2_000, LockBound.durationMs("2 sec"));
        assertEquals(120_000, LockBound.durationMs("2min"));
    }

    @Test
    void aMetastoreThatBlinkedWhenTheTaskStartedIsAskedAgainAtTheNextClaim() {
        metastore.ignoreCompareAndSet = true;
        metastore.settings.put("metastore.hmshandler.retry.attempts", "40");
        AtomicBoolean blink = new AtomicBoolean(true);
        Metastore blinking = Intercepted.before(metastore, (method, args) -> {
            if (method.equals("configValue") && blink.get()) {
                throw new MetastoreException("injected: the metastore blinked", null);
            }
        });
        StateTables states = new StateTables(blinking, "db", new StateTables.Deployment("conn", "conn", "db"),
                "file:///staging/conn/state", RUN.instance(), 0);
        states.readOrCreate(0);
        assertEquals(Fencing.LOCKS, FencingProbe.settle(states, RUN, Fencing.AUTO, 0));
        assertEquals(60_000, states.lateWriteBoundMs(), "Hive's defaults meanwhile");
        assertFalse(LockBound.settle(blinking, 0, RUN).final_());
        blink.set(false);
        states.settleStaleBoundIfNotFinal(RUN);
        assertEquals(240_000, states.lateWriteBoundMs(), "read at the next claim");
        metastore.settings.put("metastore.hmshandler.retry.attempts", "10");
        states.settleStaleBoundIfNotFinal(RUN);
        assertEquals(240_000, states.lateWriteBoundMs(), "read once it was read");
    }

    @Test
    void aTaskFencedByLocksUsesTheBoundItSettled() {
        metastore.ignoreCompareAndSet = true; // as Hive 3.1
        metastore.settings.put("metastore.hmshandler.retry.attempts", "40");
        StateTables states = new StateTables(metastore, "db", new StateTables.Deployment("conn", "conn", "db"),
                "file:///staging/conn/state", RUN.instance(), 0);
        states.readOrCreate(0);
        assertEquals(0, states.lateWriteBoundMs(), "compare-and-set until settled otherwise");
        assertEquals(Fencing.LOCKS, FencingProbe.settle(states, RUN, Fencing.AUTO, 0));
        assertEquals(240_000, states.lateWriteBoundMs());
    }
}
