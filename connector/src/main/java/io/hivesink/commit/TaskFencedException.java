package io.hivesink.commit;

import org.apache.kafka.connect.errors.ConnectException;

/** This task instance may no longer commit: another instance or task owns its partitions now. */
public class TaskFencedException extends ConnectException {

    public TaskFencedException(String message) {
        super(message);
    }

    public TaskFencedException(String message, Throwable cause) {
        super(message, cause);
    }
}
