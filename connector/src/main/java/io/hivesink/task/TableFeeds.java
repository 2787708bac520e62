package io.hivesink.task;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkTask;

import io.hivesink.route.TableRouter;

/**
 * Which Kafka partitions feed a table, for its watermark: those of the topics the connector subscribes to
 * ({@code topics} or {@code topics.regex}) that the routing sends to it. Routed by topic, a topic feeds its one table;
 * routed by a field, any record may go to any table, so every subscribed partition feeds every table. A partition of
 * a topic no longer subscribed holds no table back.
 */
final class TableFeeds {

    private TableFeeds() {
    }

    static Function<String, Predicate<TopicPartition>> of(TableRouter router, Map<String, String> props) {
        Predicate<String> subscribed = subscribed(props);
        if (!router.routesByTopic()) {
            return table -> tp -> subscribed.test(tp.topic());
        }
        return table -> tp -> subscribed.test(tp.topic()) && table.equals(tableOf(router, tp.topic()));
    }

    private static String tableOf(TableRouter router, String topic) {
        try {
            return router.tableFor(topic);
        } catch (DataException e) {
            return null; // a topic no table takes feeds none
        }
    }

    /** The topics the connector's properties subscribe to; without either key (a test rig), every topic. */
    static Predicate<String> subscribed(Map<String, String> props) {
        String regex = props.get(SinkTask.TOPICS_REGEX_CONFIG);
        if (regex != null && !regex.isBlank()) {
            Pattern pattern = Pattern.compile(regex.trim());
            return topic -> pattern.matcher(topic).matches();
        }
        String list = props.getOrDefault(SinkTask.TOPICS_CONFIG, "");
        Set<String> topics = Arrays.stream(list.split(",")).map(String::trim).filter(t -> !t.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
        return topics.isEmpty() ? topic -> true : topics::contains;
    }
}
