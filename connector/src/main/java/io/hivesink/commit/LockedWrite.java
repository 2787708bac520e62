package io.hivesink.commit;

import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.hive.metastore.api.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.MetastoreConfig;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreAnswerLostException;
import io.hivesink.metastore.MetastoreException;

/**
 * A compare-and-set of a task state done by hand, under the state table's exclusive lock ({@link StateLocks}): nobody
 * else reads-and-writes the table while the lock is held.
 *
 * <p>Why the heartbeats around the write: the lock is heartbeat in the same step as the write, so a writer whose lock
 * was broken (taken for left behind) writes nothing. And again after it: a lock broken while the write was under way
 * (it reached the metastore's database more than the stale bound after its heartbeat) means the write may have landed
 * over the breaker's, or the breaker's over it. The instance cannot tell which, so it takes no step on it and stops
 * ({@link LockBrokenException}). A write sent whose answer was lost may still be under way in the metastore (which
 * retries a call that met an error of its database): the lock is then kept, and heartbeat, for one stale bound after
 * the metastore answers again, so that such a write lands under it or not at all, and a lock found gone stops the
 * instance as above. A write that failed before it was sent, or that the metastore answered (after its own retries),
 * has nothing under way: its lock goes at once. A metastore that does not answer for {@value #MAX_VERIFY_MS} ms
 * beyond the bound leaves the question open, and stops the instance too. Interrupted meanwhile (the task stops), the
 * writer leaves the lock to go stale rather than release it under a write that may still land.
 */
final class LockedWrite {

    private static final Logger log = LoggerFactory.getLogger(LockedWrite.class);
    static final long MAX_VERIFY_MS = 300_000;

    private final Metastore metastore;
    private final String database;
    private final StateLocks locks;
    private final String writer;
    private final String connector;

    LockedWrite(Metastore metastore, String database, StateLocks locks, String writer, String connector) {
        this.metastore = metastore;
        this.database = database;
        this.locks = locks;
        this.writer = writer;
        this.connector = connector;
    }

    /**
     * Writes {@code table} if its version parameter {@code versionKey} is still {@code expectedVersion}.
     *
     * @return false if another writer changed it first, or broke the lock before the write: nothing written
     * @throws LockBrokenException if the lock was broken while the write was under way, or cannot be shown to have held
     */
    boolean write(Table table, String versionKey, String expectedVersion) {
        String name = table.getTableName();
        long lock = locks.acquire(name);
        boolean release = true;
        try {
            Table stored = read(name);
            long brokenAt = locks.brokenAt(name);
            if (!stored.getParameters().getOrDefault(versionKey, "0").equals(expectedVersion)) {
                if (brokenAt >= 0) { // the break goes on the state as it stands, for whoever reads it next
                    writeUnderLock(lock, stamped(stored, versionKey, brokenAt), brokenAt);
                }
                return false;
            }
            if (brokenAt >= 0) {
                table.getParameters().put(StateTables.LOCK_BROKEN_AT, Long.toString(brokenAt));
            }
            return writeUnderLock(lock, table, brokenAt);
        } catch (MetastoreAnswerLostException e) {
            // the write may still land: not while another writer holds the lock. A failure before the write went
            // out, or one the metastore answered (after its own retries), leaves nothing under way
            release = holdThroughLateWrite(name, lock, e);
            throw e;
        } finally {
            if (release) {
                locks.release(lock);
            }
        }
    }

    /**
     * Takes the table's lock and lets it go, breaking locks left behind on the way: a lock it broke is stamped on the
     * state at once ({@link StateTables#LOCK_BROKEN_AT}), before another task's claim reads it. A stamp that fails
     * (the metastore blinked) is made by this instance's next write of the state.
     */
    void recordBreak(String name) {
        long lock = locks.acquire(name);
        boolean release = true;
        try {
            long brokenAt = locks.brokenAt(name);
            if (brokenAt >= 0) {
                writeUnderLock(lock, stamped(read(name), StateTables.VERSION, brokenAt), brokenAt);
            }
        } catch (MetastoreAnswerLostException e) {
            try {
                release = holdThroughLateWrite(name, lock, e);
            } catch (LockBrokenException broken) {
                log.warn("The lock of {}.{} was broken while its stamp was under way: {}", database, name,
                        broken.getMessage());
            }
            log.warn("Could not record on {}.{} the lock this instance broke; its next write will: {}", database,
                    name, e.getMessage());
        } catch (MetastoreException | LockBrokenException e) {
            // the lock API works; the break stays to record: whether the stamp landed or not, the next write stamps
            log.warn("Could not record on {}.{} the lock this instance broke; its next write will: {}", database,
                    name, e.getMessage());
        } finally {
            if (release) {
                locks.release(lock);
            }
        }
    }

    private Table read(String name) {
        return metastore.getTable(database, name).orElseThrow(() -> new MetastoreException("The state table "
                + database + "." + name + " has disappeared from the metastore.", null));
    }

    /** Heartbeats the lock and writes in one step; a write that landed must have held its lock throughout. */
    private boolean writeUnderLock(long lock, Table table, long brokenAt) {
        boolean written = metastore.alterTableUnderLock(lock, table, false);
        if (written) {
            locks.recorded(table.getTableName(), brokenAt);
            requireHeldThroughWrite(table.getTableName(), lock);
        }
        return written;
    }

    /**
     * The state as stored, stamped with the time this instance broke a lock on it ({@link StateTables#LOCK_BROKEN_AT})
     * and a version of its own, so that a writer that read it before the stamp writes again over it only after
     * reading it again.
     */
    private Table stamped(Table stored, String versionKey, long brokenAt) {
        Table table = stored.deepCopy();
        Map<String, String> params = new HashMap<>(table.getParameters());
        params.put(StateTables.LOCK_BROKEN_AT, Long.toString(brokenAt));
        long counter = StateTables.counter(params.getOrDefault(versionKey, "0")) + 1;
        params.put(versionKey, counter + ":" + writer + ":broken-" + brokenAt);
        table.setParameters(params);
        return table;
    }

    /**
     * After a write that landed: a heartbeat shows the lock held throughout, or the instance stops. One that fails is
     * tried again (the write landed: only the question is open) for up to {@value #MAX_VERIFY_MS} ms.
     */
    private void requireHeldThroughWrite(String table, long lock) {
        String during = "while this instance's write of it was under way";
        if (!heartbeatUntil(table, lock, 0, during, null)) {
            throw broken(table, "could not be shown to have held " + during + " (interrupted)", null);
        }
    }

    /**
     * Keeps the lock, heartbeating it, until the metastore has answered a heartbeat at least one stale bound after
     * the failed write: returns if the lock held throughout, throws if it was broken or cannot be shown to have held.
     *
     * @return whether to release the lock now; false if interrupted: it is left to go stale, a bound after its last
     *     heartbeat, since the write may still land
     */
    private boolean holdThroughLateWrite(String table, long lock, MetastoreException failure) {
        long boundMs = locks.staleAfterMs();
        log.warn("The write of {}.{} was sent and its answer lost ({}); holding its lock for {} ms after the "
                + "metastore answers, so that a write still under way there lands under it", database, table,
                failure.getMessage(), boundMs);
        if (!heartbeatUntil(table, lock, boundMs, "after this instance's write of it lost its answer", failure)) {
            log.warn("Interrupted while holding the lock of {}.{} after a write that lost its answer; the lock "
                    + "is left to go stale", database, table);
            return false;
        }
        return true;
    }

    /**
     * Heartbeats the lock, a heartbeat that fails tried again, until one answers at least {@code holdMs} from now.
     *
     * @param when when the lock had to hold, for the message
     * @return false if interrupted meanwhile
     * @throws LockBrokenException if the lock is gone, or no heartbeat answered for {@value #MAX_VERIFY_MS} ms beyond
     *     {@code holdMs}
     */
    private boolean heartbeatUntil(String table, long lock, long holdMs, String when, Throwable cause) {
        long started = System.nanoTime();
        while (true) {
            long waitedMs = (System.nanoTime() - started) / 1_000_000;
            try {
                if (!metastore.heartbeatLock(lock)) {
                    throw broken(table, "was broken by another writer " + when, cause);
                }
                if (waitedMs >= holdMs) {
                    return true;
                }
            } catch (MetastoreException unanswered) {
                if (waitedMs >= holdMs + MAX_VERIFY_MS) {
                    throw broken(table, "could not be shown to have held " + when + " (the metastore did not "
                            + "answer for " + waitedMs + " ms)", cause == null ? unanswered : cause);
                }
            }
            if (!Pause.of(Math.max(50, Math.min(2_000, locks.staleAfterMs() / 4)))) {
                return false;
            }
        }
    }

    private LockBrokenException broken(String table, String what, Throwable cause) {
        return new LockBrokenException("The lock of " + writer + " on " + database + "." + table + " " + what
                + ": the write may have landed over another writer's change, or under it (the lock window: a write "
                + "that reaches the metastore's database more than the stale bound, " + locks.staleAfterMs()
                + " ms, after its heartbeat: a long GC pause, a slow network, a metastore retrying its database). "
                + "This instance stops before it takes any step on that write; restart the failed task (POST "
                + "/connectors/" + connector + "/tasks/<its id>/restart) and its new run recovers from what the "
                + "metastore holds. If this recurs, find what stalls the writes, or raise "
                + MetastoreConfig.METASTORE_LOCK_STALE_MS + ".", cause);
    }
}
