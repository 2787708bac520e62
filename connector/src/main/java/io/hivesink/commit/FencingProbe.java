package io.hivesink.commit;

import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.MetastoreConfig;

/**
 * Settles, when a task run starts, how writes to task states are fenced on this metastore: by compare-and-set if the
 * metastore checks it (probed with a stale and a current expectation, on a scratch table of the task's: see
 * {@link StateTables#probeCompareAndSet}), else by the metastore's locks, else not at all, and then the task refuses
 * to start, saying why and what to do. A probe that met another writer's change to its table is made again: judged
 * as a refusal, it would leave the task on locks, or unable to start, for the rest of its run. A stale expectation
 * refused in words other than Hive's check is probed once more: on a metastore that ignores expectations, that
 * refusal was a failure of the write itself, and judged a check it would leave the task unfenced.
 */
final class FencingProbe {

    private static final Logger log = LoggerFactory.getLogger(FencingProbe.class);

    /**
     * Probes that meet another writer's change before a task gives up on a state others keep changing; pauses from
     * 200 ms, doubling.
     */
    static final int TRIES = 5;
    private static final long FIRST_PAUSE_MS = 200;

    private FencingProbe() {
    }

    /**
     * @return the fencing in use, set on {@code states}
     * @throws ConnectException if the requested fencing cannot work on this metastore
     */
    static Fencing settle(StateTables states, TaskRun run, Fencing requested, long foreignLockWaitMs) {
        String casProblem = null;
        if (requested != Fencing.LOCKS) {
            StateTables.Probe probed = probe(states, run);
            if (probed.outcome() == StateTables.CompareAndSet.CHECKED) {
                states.use(Fencing.COMPARE_AND_SET);
                return Fencing.COMPARE_AND_SET;
            }
            casProblem = switch (probed.outcome()) {
                case IGNORED -> "it accepts alter_table with an expected parameter value but does not check it (Hive "
                        + "3.x and 2.x before 2.3.10 do this)";
                case BROKEN -> "it refuses alter_table with an expected parameter value even when the value matches "
                        + "(Hive 4 does this with metastore.try.direct.sql=false, or on a Derby schema made by "
                        + "schematool; it failed with: " + probed.answer() + ")";
                case CHECKED, UNCONFIRMED -> throw new IllegalStateException("probe ended " + probed.outcome());
            };
            if (requested == Fencing.COMPARE_AND_SET) {
                throw new ConnectException("hive-sink cannot fence zombie tasks by compare-and-set on the "
                        + states.metastoreDescription() + ": " + casProblem
                        + ". Set hive.metastore.fencing=auto or locks.");
            }
        }
        states.settleStaleBound(run);
        StateTables.LockProblem lockProblem = waitOutForeignLocks(states, run, foreignLockWaitMs);
        if (lockProblem != null && lockProblem.foreign()) {
            throw new ConnectException("Task " + run.task() + " of " + run.connector() + " fences by metastore locks, "
                    + "and a lock that is not hive-sink's kept its state table for "
                    + MetastoreConfig.METASTORE_LOCK_FOREIGN_WAIT_MS + "=" + foreignLockWaitMs + " ms: "
                    + lockProblem.message() + ". Release it, or raise " + MetastoreConfig.METASTORE_LOCK_FOREIGN_WAIT_MS
                    + " (-1 waits for as long as it takes), and restart the task.");
        }
        if (lockProblem != null && lockProblem.held()) {
            throw new ConnectException("Task " + run.task() + " of " + run.connector() + " fences by metastore locks, "
                    + "and the lock on its state table is held: " + lockProblem.message() + ". Is another instance "
                    + "of this task running (a second Connect cluster with a connector of the same name)? A lock "
                    + "left behind by a stopped worker shows no sign of life and is broken by itself.");
        }
        if (lockProblem != null) {
            throw new ConnectException("hive-sink cannot fence zombie tasks on the "
                    + states.metastoreDescription() + ": " + (casProblem == null ? "" : casProblem + ", and ")
                    + "its lock API fails (" + lockProblem.message() + "). Locks need the metastore's transaction "
                    + "tables (a schema made by schematool); or use a metastore 2.3.10+ or 4.x with direct SQL on, "
                    + "which checks compare-and-set.");
        }
        log.info("Task {} of {} fences by metastore locks{}", run.task(), run.connector(),
                casProblem == null ? "" : ": compare-and-set cannot be used, " + casProblem);
        states.use(Fencing.LOCKS);
        return Fencing.LOCKS;
    }

    /**
     * Takes and releases the state table's lock; while only locks that are not hive-sink's keep it (an operator's, a
     * tool's), says so in a WARN at each try and tries again, for up to {@code waitMs} (-1: no end).
     */
    private static StateTables.LockProblem waitOutForeignLocks(StateTables states, TaskRun run, long waitMs) {
        long started = System.nanoTime();
        boolean sawForeign = false;
        while (true) {
            StateTables.LockProblem problem = states.lockProblem(run.task());
            long waitedMs = (System.nanoTime() - started) / 1_000_000;
            sawForeign |= problem != null && problem.foreign();
            // once a foreign lock was seen, a failed call is taken as passing and tried again within the wait, rather
            // than read as the lock API failing; a live hive-sink holder still ends the wait
            boolean waitOn = problem != null && (problem.foreign() || (sawForeign && !problem.held()));
            if (!waitOn || (waitMs >= 0 && waitedMs >= waitMs)) {
                return problem;
            }
            log.warn("Task {} of {} waits to start ({} ms so far, up to {}={}): {}", run.task(), run.connector(),
                    waitedMs, MetastoreConfig.METASTORE_LOCK_FOREIGN_WAIT_MS, waitMs < 0 ? "no end" : waitMs + " ms",
                    problem.message());
            if (!problem.foreign()) {
                pause(FIRST_PAUSE_MS * 5); // a failure may come back at once: not a tight loop
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new ConnectException("Interrupted while waiting for a lock that is not hive-sink's: "
                        + problem.message());
            }
        }
    }

    private static StateTables.Probe probe(StateTables states, TaskRun run) {
        String unconfirmed = null;
        int races = 0;
        while (true) {
            Optional<StateTables.Probe> probed = states.probeCompareAndSet(run.task());
            if (probed.isPresent() && probed.get().outcome() == StateTables.CompareAndSet.UNCONFIRMED) {
                // The two writes differ only in the expectation: a metastore that ignores it cannot refuse the stale
                // one twice while taking the current one twice, unless two failures of its own fall just there
                if (unconfirmed != null) {
                    log.warn("Task {} of {}: the {} refused a stale expectation twice and took the current one, "
                            + "both times in words other than Hive's check (\"{}\", then \"{}\"); taken as a check. "
                            + "Set hive.metastore.fencing=locks if this metastore does not check compare-and-set",
                            run.task(), run.connector(), states.metastoreDescription(), unconfirmed,
                            probed.get().answer());
                    return new StateTables.Probe(StateTables.CompareAndSet.CHECKED, null);
                }
                unconfirmed = probed.get().answer();
                // a failure of the metastore's own (a deadlock, a lost connection to its database) may come in a
                // burst: let it pass before the second probe
                long pauseMs = FIRST_PAUSE_MS + ThreadLocalRandom.current().nextLong(FIRST_PAUSE_MS);
                log.info("Task {} of {}: the {} refused a stale expectation, but not in the words of Hive's check "
                        + "(\"{}\"); probing again in {} ms to tell a check from a failure of that write alone",
                        run.task(), run.connector(), states.metastoreDescription(), unconfirmed, pauseMs);
                pause(pauseMs);
                continue;
            }
            if (probed.isPresent()) {
                return probed.get();
            }
            if (++races == TRIES) {
                throw new ConnectException("Task " + run.task() + " of " + run.connector() + " cannot tell whether "
                        + "the " + states.metastoreDescription() + " checks compare-and-set: another writer changed "
                        + "the task's state during each of " + TRIES + " probes (of table " + states.database() + "."
                        + states.probeTableName(run.task()) + "). Is a second connector of the same name writing to "
                        + "the same state database?");
            }
            long pauseMs = (FIRST_PAUSE_MS << (races - 1)) + ThreadLocalRandom.current().nextLong(FIRST_PAUSE_MS);
            log.info("Task {} of {}: another writer changed the probe's table {} during the compare-and-set "
                    + "probe; probing again in {} ms", run.task(), run.connector(), states.probeTableName(run.task()),
                    pauseMs);
            pause(pauseMs);
        }
    }

    private static void pause(long ms) {
        if (!Pause.of(ms)) {
            throw new ConnectException("Interrupted while probing the metastore's compare-and-set");
        }
    }
}
