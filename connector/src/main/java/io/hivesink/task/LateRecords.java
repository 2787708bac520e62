package io.hivesink.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.hivesink.batch.LateCheck;
import io.hivesink.config.DoneConfig;
import io.hivesink.done.DoneBounds;
import io.hivesink.done.TimeGrain;
import io.hivesink.table.HivePaths;
import io.hivesink.table.PartitionValues;

/**
 * Tells late records: those of a time partition that starts before where the task knows its table's done marks reach
 * ({@link DoneBounds}, moved by the task's own marking, and by the marks of other tasks it finds as it marks). Read on
 * the encoding threads; a Hive partition's time partition is worked out once and kept.
 */
final class LateRecords implements LateCheck {

    /** Hive partitions whose time partition is kept, per table, before the cache starts again. */
    private static final int MOST_KEPT = 10_000;

    private final DoneBounds bounds;
    private final Function<String, TimeGrain> grains;
    private final Function<String, DoneConfig.LatePolicy> policies;
    /** Per table, per Hive partition, the start of its time partition (Long.MIN_VALUE: it names none). */
    private final Map<String, Map<PartitionValues, Long>> starts = new ConcurrentHashMap<>();

    /**
     * @param grains   per table, the grain of its time partitions, or null if it has none
     * @param policies per table, what becomes of its late records
     */
    LateRecords(DoneBounds bounds, Function<String, TimeGrain> grains,
            Function<String, DoneConfig.LatePolicy> policies) {
        this.bounds = bounds;
        this.grains = grains;
        this.policies = policies;
    }

    @Override
    public Late of(String table, PartitionValues partition) {
        long until = bounds.markedUntil(table);
        if (until == Long.MIN_VALUE) {
            return null; // nothing of the table is marked: nothing is late
        }
        TimeGrain grain = grains.apply(table);
        if (grain == null) {
            return null;
        }
        Map<PartitionValues, Long> ofTable = starts.computeIfAbsent(table, t -> new ConcurrentHashMap<>());
        if (ofTable.size() > MOST_KEPT) {
            ofTable.clear();
        }
        long start = ofTable.computeIfAbsent(partition, p -> startOf(grain, p));
        if (start == Long.MIN_VALUE || start >= until) {
            return null;
        }
        return new Late(policies.apply(table), timePartition(grain, partition));
    }

    /** The start of the time partition of a Hive partition, Long.MIN_VALUE if it names none (the default one). */
    private static long startOf(TimeGrain grain, PartitionValues partition) {
        List<String> values = timeValues(grain, partition);
        return values == null ? Long.MIN_VALUE : grain.startOfValues(values);
    }

    private static List<String> timeValues(TimeGrain grain, PartitionValues partition) {
        List<String> values = new ArrayList<>();
        for (String column : grain.columns()) {
            int at = partition.names().indexOf(column);
            if (at < 0) {
                return null;
            }
            values.add(partition.values().get(at));
        }
        return values;
    }

    private static String timePartition(TimeGrain grain, PartitionValues partition) {
        List<String> values = timeValues(grain, partition);
        List<String> segments = new ArrayList<>();
        for (int i = 0; i < grain.columns().size(); i++) {
            segments.add(grain.columns().get(i) + "=" + HivePaths.escapePathName(values.get(i)));
        }
        return String.join("/", segments);
    }
}
