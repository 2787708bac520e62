package io.hivesink.task;

import java.util.Collection;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** Stops and restarts fetching from the task's partitions: Connect's consumer, through the task's context. */
interface Fetching {

    Set<TopicPartition> assignment();

    void pause(Collection<TopicPartition> partitions);

    void resume(Collection<TopicPartition> partitions);

    static Fetching of(SinkTaskContext context) {
        return new Fetching() {
            @Override
            public Set<TopicPartition> assignment() {
                return context.assignment();
            }

            @Override
            public void pause(Collection<TopicPartition> partitions) {
                context.pause(partitions.toArray(new TopicPartition[0]));
            }

            @Override
            public void resume(Collection<TopicPartition> partitions) {
                context.resume(partitions.toArray(new TopicPartition[0]));
            }
        };
    }
}
