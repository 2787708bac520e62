package io.hivesink.metastore;

/**
 * A lock on a table as the metastore lists it ({@code SHOW LOCKS}): who asked for it ({@code agentInfo}, which
 * hive-sink sets to the task instance that takes it), where from, and its times, which are the metastore database's
 * clock in milliseconds, not this machine's: compare them with each other only.
 *
 * @param acquiredAtMs when it was granted; 0 while it waits
 * @param lastHeartbeatMs when its holder last showed it is alive: granted, asked about while waiting, or heartbeat
 * @param txnId the transaction it belongs to, 0 if none (a transaction's locks are heartbeat through it)
 */
public record TableLock(long id, State state, String agentInfo, String user, String host, long acquiredAtMs,
        long lastHeartbeatMs, long txnId) {

    /** Where a lock stands. */
    public enum State {
        ACQUIRED,
        WAITING,
        /** Aborted, or not acquired: it holds nothing. */
        ENDED
    }

    /** For messages: {@code lock 42 of hive-sink:orders-t0-… (kafka@worker-3)}. */
    public String describe() {
        return "lock " + id + " of " + agentInfo + " (" + user + "@" + host + ")";
    }
}
