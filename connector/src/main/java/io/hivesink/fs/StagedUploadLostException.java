package io.hivesink.fs;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The multipart upload of a file whose batch's intent is durable is gone, and its object is not there: the batch
 * cannot be finished from the store, and waiting will not change that, so the task stops with what happened.
 */
public final class StagedUploadLostException extends ConnectException {

    public StagedUploadLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
