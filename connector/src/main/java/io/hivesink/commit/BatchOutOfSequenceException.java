package io.hivesink.commit;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * A batch whose stretch of a partition does not start at the offset committed before it: committing it would land
 * records a second time (it starts before) or skip some (it starts after). It is refused in the same conditional
 * write that would have made its intent durable, so nothing of it becomes visible, whatever path led there; the task
 * drops it and reads its partitions again from the committed offsets.
 */
public final class BatchOutOfSequenceException extends ConnectException {

    private static final long serialVersionUID = 1L;

    private final transient Map<TopicPartition, Long> committed;

    BatchOutOfSequenceException(String message, Map<TopicPartition, Long> committed) {
        super(message);
        this.committed = Map.copyOf(committed);
    }

    /**
     * Per partition the batch did not follow on, the offset it should have started from: the committed one, or, in a
     * partition never committed, where the task started it.
     */
    public Map<TopicPartition, Long> committed() {
        return committed;
    }
}
