package io.hivesink.task;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.apache.kafka.common.TopicPartition;

/**
 * What the task asks of Connect's consumer, through its context: read partitions from given offsets (before the next
 * delivery), call the task again within some milliseconds (records or not), pause and resume partitions; and what it
 * checks of it: where claimed partitions start ({@link ResumePoints}), and whether their logs still reach the
 * committed offsets ({@link OffsetsAhead}).
 */
record ConsumerControl(Consumer<Map<TopicPartition, Long>> rewinder, LongConsumer nextCallWithin,
        PartitionPauses pauses, ResumePoints resumes, OffsetsAhead offsetsAhead) {
}
