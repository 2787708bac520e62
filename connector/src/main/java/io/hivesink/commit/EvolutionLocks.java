package io.hivesink.commit;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

import io.hivesink.metastore.LockHeartbeat;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.TableGuard;

/**
 * Locks for evolving the schemas of data tables where compare-and-set is not checked. Not on the data table itself,
 * where an exclusive lock would hold back every Hive query of it (and wait behind long ones), but on a name of its own
 * beside it, {@code <database>.hive_sink_evolve_<table>_<hash>}, which every hive-sink task evolving that table takes,
 * whatever its connector: the metastore locks a name, whether or not a table has it.
 *
 * <p>Taken as state locks are; a holder heartbeats it as it writes and, from a connection of its own, every stale
 * bound (at most {@value #MAX_BEAT_MS} ms) while it evolves the table ({@link LockHeartbeat}: an ALTER ... CASCADE over
 * many partitions holds the task's connection for a while). A lock left behind here is broken once {@value
 * #MISSED_BEATS} heartbeats were missed, or after the state locks' bound if that is longer.
 */
final class EvolutionLocks implements TableGuard {

    /** The most time between two heartbeats of an evolution lock. */
    static final long MAX_BEAT_MS = 10_000;
    static final int MISSED_BEATS = 10;

    private final Metastore metastore;
    private final String writer;
    private final LongSupplier staleBoundMs;
    private final Map<String, StateLocks> byDatabase = new ConcurrentHashMap<>();

    /**
     * @param writer the task instance that takes the locks
     * @param staleBoundMs the state locks' stale bound, settled when the task starts
     */
    EvolutionLocks(Metastore metastore, String writer, LongSupplier staleBoundMs) {
        this.metastore = metastore;
        this.writer = writer;
        this.staleBoundMs = staleBoundMs;
    }

    @Override
    public boolean underLock(String database, String table, LongPredicate change) {
        long beatMs = Math.min(staleBoundMs.getAsLong(), MAX_BEAT_MS);
        long staleMs = Math.max(staleBoundMs.getAsLong(), MISSED_BEATS * beatMs);
        StateLocks locks = byDatabase.computeIfAbsent(database, d -> new StateLocks(metastore, d, writer, staleMs));
        locks.staleAfterMs(staleMs); // the state locks' bound may have been read again since (LockBound)
        long lock = locks.acquire(lockName(database, table));
        LockHeartbeat alive = LockHeartbeat.NONE;
        try {
            alive = metastore.keepLockAlive(lock, beatMs);
            return change.test(lock);
        } finally {
            alive.close();
            locks.release(lock);
        }
    }

    /** The name every hive-sink task locks beside {@code database.table} to evolve it. */
    static String lockName(String database, String table) {
        String qualified = (database + "." + table).toLowerCase(Locale.ROOT);
        String hash = Integer.toHexString(qualified.hashCode());
        String shortTable = table.length() > 60 ? table.substring(0, 60) : table;
        return ("hive_sink_evolve_" + shortTable + "_" + hash).toLowerCase(Locale.ROOT);
    }
}
