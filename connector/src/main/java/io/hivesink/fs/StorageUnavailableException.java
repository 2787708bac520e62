package io.hivesink.fs;

import org.apache.kafka.connect.errors.RetriableException;

/** The FileSystem cannot be written for now (down, restarting, in safe mode); it did not refuse the task. */
public final class StorageUnavailableException extends RetriableException {

    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
