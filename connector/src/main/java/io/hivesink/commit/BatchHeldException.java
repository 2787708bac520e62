package io.hivesink.commit;

import org.apache.kafka.connect.errors.RetriableException;

/**
 * A batch's intent was refused because a compaction holds a partition it lands in, or moved that partition since
 * the batch was staged ({@link HoldCheck}): nothing of it is durable, and its next try stages it again.
 */
public class BatchHeldException extends RetriableException {

    private static final long serialVersionUID = 1L;

    public BatchHeldException(String message) {
        super(message);
    }
}
