package io.hivesink.task;

import java.util.function.LongSupplier;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

import io.hivesink.metastore.MetastoreRefusedException;

/**
 * How long the task has been meeting a metastore refusal ({@link MetastoreRefusedException}) in a row, on whatever it
 * retries (a held commit, a table admitted for the open batch). An outage is waited out for as long as it lasts; a
 * refusal is given the task's outage wait ({@code hive.metastore.start.wait.ms}, since the metastore's words may
 * misjudge an error that does pass) and {@link #MIN_TRIES} tries, then fails the task with the metastore's words,
 * rather than retrying for ever while the task shows RUNNING and nothing lands.
 */
final class Refusals {

    static final int MIN_TRIES = 5;

    private final LongSupplier clock;
    private final long limitMs;
    private long firstAtMs = -1;
    private int tries;

    Refusals(LongSupplier clock, long limitMs) {
        this.clock = clock;
        this.limitMs = limitMs;
    }

    /**
     * A call failed retriably.
     *
     * @throws ConnectException if it was a refusal met in a row for longer than the limit
     */
    void failed(RetriableException e) {
        MetastoreRefusedException refusal = refusalIn(e);
        if (refusal == null) {
            clear(); // an outage: waited out
            return;
        }
        long nowMs = clock.getAsLong();
        if (firstAtMs < 0) {
            firstAtMs = nowMs;
        }
        tries++;
        if (tries >= MIN_TRIES && nowMs - firstAtMs >= limitMs) {
            throw new ConnectException("The metastore has refused the task's calls for " + (nowMs - firstAtMs) / 1000
                    + " s (" + tries + " tries), in words that do not say the refusal passes: " + refusal.getMessage()
                    + ". The task stops rather than retry for ever; fix what the metastore says, then restart the "
                    + "task: it resumes from the offsets committed in the metastore.", e);
        }
    }

    /** A call went through. */
    void clear() {
        firstAtMs = -1;
        tries = 0;
    }

    private static MetastoreRefusedException refusalIn(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof MetastoreRefusedException refusal) {
                return refusal;
            }
        }
        return null;
    }
}
