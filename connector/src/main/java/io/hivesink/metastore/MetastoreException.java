package io.hivesink.metastore;

import org.apache.kafka.connect.errors.RetriableException;

/** A metastore call failed in a way that may pass on a later try (connection, timeout, server error). */
public class MetastoreException extends RetriableException {

    public MetastoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
