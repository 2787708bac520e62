package io.hivesink.commit;

import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Another task claimed partitions a state change needed this task to own (a batch's intent, a move of committed
 * offsets): the change is not made, and their new owner resumes them from the offsets committed before it. Unlike
 * {@link TaskFencedException} (another instance of this task runs it now), this task is not a zombie: most likely
 * Kafka's group gave the partitions away (a {@code max.poll.interval.ms} overrun, a lost consumer session) and tells
 * the task at its next poll. It drops its batches of them and goes on with the partitions it still owns; if Connect
 * keeps them assigned here (the other task's claim came late, from an assignment it had lost), it claims them again
 * later (the task package's {@code TakenPartitions}).
 */
public class PartitionsTakenException extends ConnectException {

    private final Set<TopicPartition> partitions;

    public PartitionsTakenException(String message, Set<TopicPartition> partitions) {
        super(message);
        this.partitions = Set.copyOf(partitions);
    }

    /** The partitions another task owns now. */
    public Set<TopicPartition> partitions() {
        return partitions;
    }
}
