package io.hivesink.metastore;

/**
 * No metastore of {@code hive.metastore.uris} answered: down, restarting or unreachable. Unlike a metastore that
 * answers and refuses (SASL, TLS, an unsupported release), this may pass by itself, so a starting task waits for it.
 */
public final class MetastoreUnreachableException extends MetastoreException {

    private static final long serialVersionUID = 1L;

    public MetastoreUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
