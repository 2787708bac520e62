package io.hivesink.metastore;

/**
 * A write was sent to the metastore and its answer lost (the connection broke or timed out while the metastore worked
 * on it): it may have landed, or may still land, since the metastore retries a call that met an error of its
 * database. Unlike a failure before the call went out, or an error the metastore answered, the caller cannot take
 * the write for not done.
 */
public final class MetastoreAnswerLostException extends MetastoreException {

    private static final long serialVersionUID = 1L;

    public MetastoreAnswerLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
