package io.hivesink.commit;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metastore.TableLock;

/**
 * Exclusive metastore locks around the writes of task states, where the metastore does not check compare-and-set
 * (Hive 3.1, and 4.0 on a schematool Derby schema).
 *
 * <p>Why more than lock and unlock: on these metastores a lock outlives its holder. They time locks out only in a
 * house-keeping thread that a stock metastore does not start, and keep locks in their database, so a restart keeps
 * them too. A worker killed inside a locked write, a lock granted to a request whose answer was lost, an unlock that
 * failed while the metastore restarted: each would leave a lock that stops every later write of that state, and so
 * the task, for good. So each lock says who took it (its agent info is the task instance), and a writer that waits
 * looks at the locks ahead of it: one of its own instance, which it does not hold, is a leftover and is released at
 * once; any other of hive-sink's (taken as user {@value #HOLDER_USER}, in no transaction) that shows no sign of life
 * (its heartbeat unchanged, granted or waiting) for {@code staleAfterMs} of the writer's watch is broken. A lock of
 * anyone else, a Hive query's, is waited for, never broken. A live holder keeps a state lock for one
 * read and one write, milliseconds, and heartbeats it in the same step as its write
 * ({@link Metastore#alterTableUnderLock}: no other call on its client between them, and the write not sent again on a
 * lost connection): a holder whose lock was broken finds out there and does not write.
 *
 * <p>What remains, since a 3.1 lock carries no fencing token: a write that passed its heartbeat and then reaches the
 * metastore's database more than {@code staleAfterMs} later (a long GC pause between the two, a slow or partitioned
 * network) can overwrite a state written under the lock that broke its own. The window runs until the metastore
 * commits that write.
 */
final class StateLocks {

    private static final Logger log = LoggerFactory.getLogger(StateLocks.class);

    /** A write waits for its lock at most this many times the stale bound before it fails (and is tried again). */
    static final int WAIT_BOUNDS = 3;
    /** The user every hive-sink lock is taken as (by this build and the ones before it): only those are broken. */
    static final String HOLDER_USER = "hive-sink";
    /** The metastore keeps at most this many characters of a lock's agent info. */
    static final int MAX_AGENT_INFO = 128;
    private static final long FIRST_PAUSE_MS = 20;
    private static final long MAX_PAUSE_MS = 500;

    private final Metastore metastore;
    private final String database;
    private final String agentInfo;
    /** Settled when the task starts ({@link LockBound}); read by its threads. */
    private volatile long staleAfterMs;
    private volatile long waitMs;
    /** The locks this instance holds now: any other lock of its agent info is one it left behind. */
    private final Set<Long> held = ConcurrentHashMap.newKeySet();
    /**
     * The tables on which this instance broke a lock, and when (epoch ms), until a write of that table records it
     * ({@link #brokenAt}): the break is stamped on the state, for every later claimer to see.
     */
    private final Map<String, Long> broken = new ConcurrentHashMap<>();

    /**
     * @param instance the task instance that takes the locks
     * @param staleAfterMs how long a lock ahead of a writer may show no sign of life before it is broken
     */
    StateLocks(Metastore metastore, String database, String instance, long staleAfterMs) {
        this(metastore, database, instance, staleAfterMs, waitMs(staleAfterMs));
    }

    StateLocks(Metastore metastore, String database, String instance, long staleAfterMs, long waitMs) {
        this.metastore = metastore;
        this.database = database;
        this.agentInfo = agentInfo(instance);
        this.staleAfterMs = staleAfterMs;
        this.waitMs = waitMs;
    }

    /** How long a lock ahead of a writer may show no sign of life before it is broken. */
    long staleAfterMs() {
        return staleAfterMs;
    }

    /** From now on, locks silent this long are broken, and a write waits for its lock up to {@link #waitMs}. */
    void staleAfterMs(long ms) {
        this.staleAfterMs = ms;
        this.waitMs = waitMs(ms);
    }

    /** When this instance broke a lock on the table that no write of it has recorded yet; -1 if none. */
    long brokenAt(String table) {
        return broken.getOrDefault(table, -1L);
    }

    /** A write of the table recorded the break at {@code at} ({@link #brokenAt}). */
    void recorded(String table, long at) {
        broken.remove(table, at);
    }

    /**
     * How long a write waits for its lock: long enough to watch a lock left behind for the whole bound, and not so
     * long that a claim's tries outlast the consumer's poll interval: three bounds, or the bound and 20 s if less.
     */
    static long waitMs(long staleAfterMs) {
        return Math.min(WAIT_BOUNDS * staleAfterMs, staleAfterMs + 20_000);
    }

    /** What the metastore records as the holder of this instance's locks: {@code hive-sink:<instance>}, capped. */
    static String agentInfo(String instance) {
        String info = "hive-sink:" + instance;
        // the instance ends in what makes it unique: keep the end
        return info.length() <= MAX_AGENT_INFO ? info : "hive-sink:~" + info.substring(info.length()
                - (MAX_AGENT_INFO - "hive-sink:~".length()));
    }

    /**
     * Takes the exclusive lock on the state table, waiting up to the wait bound and breaking the locks left behind
     * ahead of it.
     *
     * @return the lock's id
     * @throws LockHeldException if a live holder kept it for the whole wait
     * @throws MetastoreException if the lock API fails (no transaction tables, the metastore away)
     */
    long acquire(String table) {
        TableLock requested = metastore.requestExclusiveLock(database, table, agentInfo);
        long id = requested.id();
        try {
            TableLock.State state = requested.state();
            long started = System.nanoTime();
            long pauseMs = FIRST_PAUSE_MS;
            long nextLookMs = 0; // a lock of our own left behind is released at the first look
            Map<Long, Silence> watched = new HashMap<>();
            while (state == TableLock.State.WAITING) {
                long waitedMs = (System.nanoTime() - started) / 1_000_000;
                if (waitedMs >= waitMs) {
                    throw lockHeld(table, id);
                }
                pause(Math.min(pauseMs, Math.max(1, waitMs - waitedMs)));
                pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
                state = metastore.checkLock(id);
                if (state == TableLock.State.WAITING && waitedMs >= nextLookMs) {
                    releaseLeftovers(table, id, watched);
                    nextLookMs = waitedMs + lookEveryMs();
                }
            }
            if (state != TableLock.State.ACQUIRED) {
                throw new MetastoreException("The lock on " + database + "." + table + " ended " + state
                        + " instead of being granted", null);
            }
            noteBrokenAhead(table, watched);
            held.add(id);
            return id;
        } catch (RuntimeException e) {
            releaseQuietly(id); // a lock left waiting would stand ahead of our next one
            throw e;
        }
    }

    /**
     * Releases the lock. A failure is logged, not thrown: the write it guarded is done, and the lock, left behind, is
     * released by this instance's next {@link #acquire} on that table, or broken by any other writer.
     */
    void release(long lockId) {
        held.remove(lockId);
        releaseQuietly(lockId);
    }

    private void releaseQuietly(long lockId) {
        try {
            metastore.unlock(lockId);
        } catch (RuntimeException e) {
            log.warn("Could not release metastore lock {} ({}); it is released when this task next writes its "
                    + "state, or broken by another writer after {} ms", lockId, e.getMessage(), staleAfterMs);
        }
    }

    private long lookEveryMs() {
        return Math.max(50, Math.min(1_000, staleAfterMs / 4));
    }

    /**
     * Granted after a granted hive-sink lock ahead of ours was silent for half the bound or more: another writer
     * waiting beside this one most likely broke it, and its holder's write may still land. This writer records the
     * break as its own ({@link #brokenAt}), so that its write, the first under the table's next lock, carries it.
     */
    private void noteBrokenAhead(String table, Map<Long, Silence> watched) {
        if (!broken.containsKey(table) && watched.values().stream()
                .anyMatch(silence -> silence.silentMs >= staleAfterMs / 2)) {
            log.info("A hive-sink lock on {}.{} that showed no sign of life for half the stale bound or more went "
                    + "before this writer's was granted: taken for broken", database, table);
            broken.put(table, System.currentTimeMillis());
        }
    }

    /** Releases the locks ahead of ours that are left behind: our own instance's, or silent for the bound. */
    private void releaseLeftovers(String table, long ours, Map<Long, Silence> watched) {
        long nowMs = System.nanoTime() / 1_000_000;
        List<TableLock> locks = metastore.locksOn(database, table);
        // the metastore's clock, as ours shows it (checking it heartbeats it): the silence of a lock ahead, before
        // this writer first saw it
        long metastoreNowMs = locks.stream().filter(lock -> lock.id() == ours).mapToLong(TableLock::lastHeartbeatMs)
                .findFirst().orElse(0);
        for (TableLock lock : locks) {
            if (lock.id() >= ours || lock.state() == TableLock.State.ENDED) {
                continue; // only the locks queued before ours keep it waiting
            }
            if (agentInfo.equals(lock.agentInfo()) && !held.contains(lock.id())) {
                log.warn("Releasing {} on {}.{}: this task instance holds no lock there, so it is one it left "
                        + "behind (its grant's answer was lost, or its release failed)", lock.describe(), database,
                        table);
                metastore.unlock(lock.id());
                continue;
            }
            if (!isHiveSinks(lock)) {
                continue; // not hive-sink's: a Hive query's lock (heartbeat through its transaction, if at all, every
                // few minutes) is waited for, never broken
            }
            long ageMs = metastoreNowMs > 0 && lock.lastHeartbeatMs() > 0 ? metastoreNowMs - lock.lastHeartbeatMs()
                    : 0;
            Silence silence = watched.get(lock.id());
            // only a granted lock's holder can have a write under way: a waiting one's age says nothing
            long writingAgeMs = lock.state() == TableLock.State.ACQUIRED ? Math.max(0, ageMs) : 0;
            if (silence == null || silence.heartbeatMs != lock.lastHeartbeatMs()) {
                watched.put(lock.id(), new Silence(lock.lastHeartbeatMs(), nowMs, writingAgeMs));
            } else if (nowMs - silence.sinceMs < staleAfterMs) {
                watched.put(lock.id(), new Silence(silence.heartbeatMs, silence.sinceMs,
                        lock.state() == TableLock.State.ACQUIRED ? Math.max(nowMs - silence.sinceMs, writingAgeMs)
                                : 0));
            } else {
                log.warn("Breaking {} on {}.{}, {} {}: no sign of life for {} ms while this task waited (a live "
                        + "holder keeps a state lock for milliseconds). A worker stopped inside a locked write "
                        + "leaves such a lock, and this metastore does not time locks out (it would with "
                        + "metastore.compactor.initiator.on on 3.x, metastore.housekeeping.threads.on on 4.x)",
                        lock.describe(), database, table, lock.state() == TableLock.State.ACQUIRED ? "granted"
                                : "waiting", since(lock), nowMs - silence.sinceMs);
                metastore.unlock(lock.id());
                watched.remove(lock.id());
                broken.put(table, System.currentTimeMillis());
            }
        }
    }

    /** Whether hive-sink took the lock: taken as its user, in no transaction. Only those are ever broken. */
    static boolean isHiveSinks(TableLock lock) {
        return HOLDER_USER.equals(lock.user()) && lock.txnId() == 0;
    }

    /**
     * The wait is over: who holds the table's lock, or what else keeps ours waiting, each named as what it is, and
     * for a lock that is not hive-sink's, how to release it.
     */
    private LockHeldException lockHeld(String table, long ours) {
        StringJoiner ahead = new StringJoiner("; ");
        boolean foreign = false;
        boolean ownLive = false;
        try {
            for (TableLock lock : metastore.locksOn(database, table)) {
                if (lock.id() >= ours || lock.state() == TableLock.State.ENDED) {
                    continue;
                }
                String held = (lock.state() == TableLock.State.ACQUIRED ? "held by " : "queued by ") + lock.describe()
                        + " " + since(lock);
                if (isHiveSinks(lock)) {
                    ownLive = true;
                    ahead.add(held + ", a hive-sink lock that did not stay silent for " + staleAfterMs + " ms "
                            + "while this task waited: a live task instance holds it");
                } else {
                    foreign = true;
                    ahead.add(held + heartbeat(lock) + ", which is not hive-sink's (taken as user " + lock.user()
                            + (lock.txnId() == 0 ? ", in no transaction" : ", in transaction " + lock.txnId())
                            + "), so hive-sink waits for it and never breaks it. " + howToRelease(table, lock));
                }
            }
        } catch (RuntimeException e) {
            ahead.add("the locks ahead could not be listed (" + e.getMessage() + ")");
        }
        String who = ahead.length() == 0 ? "no lock ahead of it was listed" : ahead.toString();
        return new LockHeldException("The lock on " + database + "." + table + " was not granted in " + waitMs
                + " ms: " + who, foreign && !ownLive);
    }

    private String howToRelease(String table, TableLock lock) {
        String end = lock.txnId() == 0 ? "Release it from the session or tool that took it"
                : "End its transaction (in Hive: ABORT TRANSACTIONS " + lock.txnId() + ";)";
        return end + "; SHOW LOCKS " + database + "." + table + " EXTENDED lists it. A metastore times out a lock "
                + "whose heartbeat stopped only with its house-keeping on (metastore.compactor.initiator.on=true on "
                + "3.x, metastore.housekeeping.threads.on=true on 4.x), after metastore.txn.timeout (300 s); "
                + "failing that, its holder gone, delete its row from the metastore database's HIVE_LOCKS table "
                + "(HL_LOCK_EXT_ID = " + lock.id() + ")";
    }

    private static String heartbeat(TableLock lock) {
        return lock.lastHeartbeatMs() > 0 ? ", last heartbeat at " + Instant.ofEpochMilli(lock.lastHeartbeatMs())
                : "";
    }

    private static String since(TableLock lock) {
        long at = lock.acquiredAtMs() > 0 ? lock.acquiredAtMs() : lock.lastHeartbeatMs();
        return at > 0 ? "since " + Instant.ofEpochMilli(at) + " (the metastore's clock)" : "";
    }

    private static void pause(long ms) {
        if (!Pause.of(ms)) {
            throw new MetastoreException("Interrupted waiting for a metastore lock", null);
        }
    }

    /**
     * A lock ahead of ours, watched: its heartbeat, unchanged since this (monotonic) time, and the longest silence seen
     * of it (by this writer's watch, or by the age of its heartbeat on the metastore's clock).
     */
    private record Silence(long heartbeatMs, long sinceMs, long silentMs) {
    }

    /** A live holder kept the lock for the whole wait, or a holder that is not hive-sink's, live or not. */
    static final class LockHeldException extends MetastoreException {

        private static final long serialVersionUID = 1L;
        private final boolean foreign;

        LockHeldException(String message, boolean foreign) {
            super(message, null);
            this.foreign = foreign;
        }

        /** Only locks that are not hive-sink's were ahead: no other instance of a hive-sink task holds it. */
        boolean foreign() {
            return foreign;
        }
    }
}
