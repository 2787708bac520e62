package io.hivesink.done;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

import org.apache.kafka.common.TopicPartition;

/**
 * The watermarks of the tables a task lands event times in, as of the task states it last read. Updated on the
 * thread that commits, read by metrics from any thread.
 */
public final class TableWatermarks {

    private final Function<String, Predicate<TopicPartition>> feeds;
    private final ToLongFunction<String> latenessMs;
    private final Function<String, TimeGrain> grains;
    /** The table partitioned by time a topic feeds, if routed by topic; else null. */
    private final Function<String, String> timeTableOf;
    /** Per table kept, its time partitions' grain, if its pattern has one. */
    private final Map<String, Optional<TimeGrain>> grainOf = new ConcurrentHashMap<>();
    private final Map<String, Long> watermarks = new ConcurrentHashMap<>();
    /** Every partition of the subscribed topics, or null while not known (then the states' partitions only). */
    private volatile Set<TopicPartition> partitions;
    /** Whether no watermark is computed until the partitions are known ({@link #requirePartitionsKnown}). */
    private volatile boolean requireKnown;

    /**
     * @param feeds      per table, which Kafka partitions feed it (by the routing, among the topics subscribed)
     * @param latenessMs per table, the allowed lateness ({@code partition.done.lateness.ms})
     * @param grains     per table, the grain of its time partitions, or null if it has none
     */
    public TableWatermarks(Function<String, Predicate<TopicPartition>> feeds, ToLongFunction<String> latenessMs,
            Function<String, TimeGrain> grains) {
        this(feeds, latenessMs, grains, topic -> null);
    }

    /**
     * @param timeTableOf per topic, the table partitioned by time it feeds (routed by topic), or null if none or
     *                    unknown (routed by a field)
     */
    public TableWatermarks(Function<String, Predicate<TopicPartition>> feeds, ToLongFunction<String> latenessMs,
            Function<String, TimeGrain> grains, Function<String, String> timeTableOf) {
        this.timeTableOf = timeTableOf;
        this.feeds = feeds;
        this.latenessMs = latenessMs;
        this.grains = grains;
    }

    /** The table has event times: its watermark is kept from now on ({@link Watermarks#NONE} until known). */
    public boolean track(String table) {
        if (watermarks.putIfAbsent(table, Watermarks.NONE) != null) {
            return false;
        }
        grainOf.put(table, Optional.ofNullable(grains.apply(table)));
        return true;
    }

    /**
     * No watermark is computed until {@link #partitionsKnown} is first called: a task that reads the partitions
     * (from its consumer) asks this, so that a failed first read never lets a watermark leave a partition out.
     */
    public void requirePartitionsKnown() {
        requireKnown = true;
    }

    /** The tables partitioned by time that these partitions feed by their topic have watermarks from now on. */
    public void trackFeeding(Collection<TopicPartition> fed) {
        for (TopicPartition tp : fed) {
            String table = timeTableOf.apply(tp.topic());
            if (table != null) {
                track(table);
            }
        }
    }

    /**
     * Every partition of the subscribed topics, as the cluster's metadata has them: one that no task's state holds
     * yet (added to a topic, or not claimed yet while tasks start) holds back the tables it feeds.
     */
    public void partitionsKnown(Set<TopicPartition> all) {
        partitions = Set.copyOf(all);
    }

    /**
     * Computes every tracked table's watermark again from what each Kafka partition has landed. A watermark never
     * goes back: a lower value read (a partition reassigned to a task whose state knows less of it, a state read
     * before another's write) leaves it as it was.
     */
    public void update(Map<TopicPartition, Long> landed) {
        Set<TopicPartition> known = partitions;
        if (known == null && requireKnown) {
            return; // a partition no task claimed yet would be left out: the watermark could pass its records
        }
        if (known != null && !landed.keySet().containsAll(known)) {
            Map<TopicPartition, Long> all = new HashMap<>(landed);
            known.forEach(tp -> all.putIfAbsent(tp, Watermarks.NONE));
            landed = all;
        }
        for (String table : Set.copyOf(watermarks.keySet())) {
            long next = Watermarks.of(landed, feeds.apply(table), latenessMs.applyAsLong(table));
            watermarks.merge(table, next, Math::max);
        }
    }

    /** The table's watermark in epoch milliseconds, or {@link Watermarks#NONE}. */
    public long of(String table) {
        return watermarks.getOrDefault(table, Watermarks.NONE);
    }

    /**
     * The start of the table's first time partition that is not complete: every one before it ends at or before
     * the watermark. {@link Watermarks#NONE} while the table has no watermark, or if its pattern has no grain.
     */
    public long completeBefore(String table) {
        long watermark = of(table);
        Optional<TimeGrain> grain = grainOf.getOrDefault(table, Optional.empty());
        return watermark == Watermarks.NONE || grain.isEmpty() ? Watermarks.NONE : grain.get().startOf(watermark);
    }

    public Map<String, Long> all() {
        return Map.copyOf(watermarks);
    }
}
