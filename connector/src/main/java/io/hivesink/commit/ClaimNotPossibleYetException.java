package io.hivesink.commit;

import org.apache.kafka.connect.errors.RetriableException;

/**
 * Partitions could not be claimed for now: the metastore or the FileSystem failed in a way that may pass (down,
 * restarting, unreachable). The task keeps them paused and claims them later.
 */
public final class ClaimNotPossibleYetException extends RetriableException {

    private static final long serialVersionUID = 1L;

    public ClaimNotPossibleYetException(String message, Throwable cause) {
        super(message, cause);
    }
}
