package io.hivesink.task;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the Kafka logs of partitions start and end, as the task's own consumer sees them. Connect does not hand a
 * task its consumer; the context Connect 3.x and 4.x give a task holds it in a field named {@code consumer}, read here
 * by reflection, as Iceberg's sink reads it. On a runtime that keeps it elsewhere the logs are {@link #UNKNOWN}, and a
 * task says so once when it starts.
 */
interface LogOffsets {

    /** Nothing is known of the logs. */
    LogOffsets UNKNOWN = partitions -> Map.of();

    /**
     * Per partition whose log the consumer could tell, the offset of its first record and the offset after its last;
     * a partition whose log could not be read is absent.
     */
    Map<TopicPartition, LogRange> ranges(Collection<TopicPartition> partitions);

    /**
     * Every partition of the topics {@code subscribed} accepts, as the cluster's metadata has them, or null if they
     * cannot be told (no consumer reached, the metadata not answered).
     */
    default Set<TopicPartition> partitionsOf(Predicate<String> subscribed) {
        return null;
    }

    /** A partition's log: offsets {@code start} (the first still held) to {@code end} (the next to be written). */
    record LogRange(long start, long end) {
    }

    /** The logs as the consumer behind the context sees them, or {@link #UNKNOWN}. */
    static LogOffsets of(SinkTaskContext context) {
        Consumer<?, ?> consumer = consumerOf(context);
        if (consumer == null) {
            Log.LOG.warn("Cannot reach the task's Kafka consumer through its context ({}): committed offsets past "
                    + "the end of a partition's log (a topic deleted and created again) are not detected, caught-up "
                    + "partitions do not advance watermarks, and partitions no task has claimed yet do not hold "
                    + "them back",
                    context.getClass().getName());
            return UNKNOWN;
        }
        return new OfConsumer(consumer);
    }

    /** The logs and the topics' partitions as the task's consumer reads them, on the task's thread only. */
    final class OfConsumer implements LogOffsets {

        private static final Duration TIMEOUT = Duration.ofSeconds(5);
        private final Consumer<?, ?> consumer;

        OfConsumer(Consumer<?, ?> consumer) {
            this.consumer = consumer;
        }

        /**
         * From the consumer's metadata for the topics it subscribes to, which it keeps up to date for its fetches:
         * no round trip to the broker on the delivery's path (one only for a topic whose metadata it lacks).
         */
        @Override
        public Set<TopicPartition> partitionsOf(Predicate<String> subscribed) {
            try {
                Set<String> topics = consumer.subscription();
                if (topics.isEmpty()) {
                    return null; // not subscribed yet: not known
                }
                Set<TopicPartition> all = new HashSet<>();
                for (String topic : topics) {
                    if (subscribed.test(topic)) {
                        consumer.partitionsFor(topic, TIMEOUT).forEach(info ->
                                all.add(new TopicPartition(info.topic(), info.partition())));
                    }
                }
                return all;
            } catch (RuntimeException e) {
                Log.LOG.warn("Could not read the partitions of the topics subscribed to ({}); tried again later",
                        e.toString());
                return null;
            }
        }

        @Override
        public Map<TopicPartition, LogRange> ranges(Collection<TopicPartition> partitions) {
            try {
                Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions, TIMEOUT);
                Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
                Map<TopicPartition, LogRange> ranges = new HashMap<>();
                starts.forEach((tp, start) -> {
                    Long end = ends.get(tp);
                    if (start != null && end != null) {
                        ranges.put(tp, new LogRange(start, end));
                    }
                });
                return ranges;
            } catch (RuntimeException e) {
                Log.LOG.warn("Could not read where the logs of {} start and end ({}); their committed offsets are "
                        + "not checked against them this time", partitions, e.toString());
                return Map.of();
            }
        }
    }

    private static Consumer<?, ?> consumerOf(SinkTaskContext context) {
        for (Class<?> type = context.getClass(); type != null; type = type.getSuperclass()) {
            try {
                Field field = type.getDeclaredField("consumer");
                if (Consumer.class.isAssignableFrom(field.getType())) {
                    field.setAccessible(true);
                    return (Consumer<?, ?>) field.get(context);
                }
            } catch (NoSuchFieldException e) {
                // not on this class: its superclass may have it
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** The interface's logger. */
    final class Log {
        static final Logger LOG = LoggerFactory.getLogger(LogOffsets.class);

        private Log() {
        }
    }
}
