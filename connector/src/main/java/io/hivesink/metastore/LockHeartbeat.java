package io.hivesink.metastore;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats one metastore lock from a connection of its own, every so often, until closed.
 *
 * <p>Why: a lock taken to evolve a table on Hive 3.1 is heartbeated in the same step as the write, and then the
 * write, an {@code ALTER TABLE ... CASCADE}, holds the task's one connection for as long as the metastore takes to
 * rewrite every partition. A task waiting for the same lock breaks it when it has been silent too long, reads the
 * schema from before the cascade and writes it back over the cascade's change. Heartbeats from a second connection
 * keep the lock alive for as long as the holder lives; a holder that dies stops them, and its lock is broken as
 * before.
 *
 * <p>The connection is opened by the caller and belongs to a daemon thread, which heartbeats and closes it at the end.
 * A failed heartbeat is logged and tried again at the next beat; a lock found gone ends them.
 */
public final class LockHeartbeat implements AutoCloseable {

    /** Nothing to keep alive: for metastores whose locks need no second connection. */
    public static final LockHeartbeat NONE = new LockHeartbeat();

    private static final Logger log = LoggerFactory.getLogger(LockHeartbeat.class);
    private static final long CLOSE_WAIT_MS = 2_000;

    private final CountDownLatch closed = new CountDownLatch(1);
    private final Metastore connection;
    private final Thread thread;

    private LockHeartbeat() {
        this.connection = null;
        this.thread = null;
    }

    private LockHeartbeat(Metastore connection, long lockId, long everyMs) {
        this.connection = connection;
        this.thread = new Thread(() -> beat(lockId, everyMs), "hive-sink-lock-heartbeat-" + lockId);
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts heartbeating {@code lockId} every {@code everyMs} over {@code connection}, which it closes at the end. */
    static LockHeartbeat start(Metastore connection, long lockId, long everyMs) {
        return new LockHeartbeat(connection, lockId, everyMs);
    }

    private void beat(long lockId, long everyMs) {
        try {
            while (!closed.await(everyMs, TimeUnit.MILLISECONDS)) {
                try {
                    if (!connection.heartbeatLock(lockId)) {
                        log.info("Lock {} is gone (released, or broken as left behind); no more heartbeats", lockId);
                        return;
                    }
                } catch (RuntimeException e) {
                    log.warn("Heartbeat of lock {} failed; trying again in {} ms: {}", lockId, everyMs,
                            e.getMessage());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
        }
    }

    /**
     * Stops the heartbeats. Waits a moment for one under way; one that hangs (a metastore that stopped answering)
     * does not hold the caller: its thread closes the connection when the call gives up.
     */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        closed.countDown();
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
