package io.hivesink.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongBiFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.LateCheck;
import io.hivesink.config.DoneConfig;
import io.hivesink.done.DoneBounds;
import io.hivesink.done.TimeGrain;
import io.hivesink.table.PartitionValues;

/**
 * Tells late records: those of a time partition that starts before where the task knows its table's done marks reach
 * ({@link DoneBounds}: read from the done table the first time a table is asked about, so that a record failed or
 * dead-lettered before a restart is again after it; then moved by the task's own marks, and by the marks of other
 * tasks it finds as it marks). Read on the encoding threads, and on the commit's thread to count the late records a
 * batch lands; a Hive partition's time partition is worked out once and kept.
 */
final class LateRecords implements LateCheck {

    private static final Logger log = LoggerFactory.getLogger(LateRecords.class);

    /** Hive partitions whose time partition is kept, per table, before the cache starts again. */
    private static final int MOST_KEPT = 10_000;
    /** A failed read of where a table's marks stand is tried again after this long. */
    static final long READ_AGAIN_MS = 60_000;

    private final DoneBounds bounds;
    private final Function<String, TimeGrain> grains;
    private final Function<String, DoneConfig.LatePolicy> policies;
    private final ToLongBiFunction<String, TimeGrain> markedUntil;
    private final LongSupplier clock;
    /** Per table, its grain (empty: it has none). */
    private final Map<String, Optional<TimeGrain>> grainOf = new ConcurrentHashMap<>();
    /** Per table, when the done table may be read for it (again); Long.MAX_VALUE once read. */
    private final Map<String, Long> readAt = new ConcurrentHashMap<>();
    /** Per table, per Hive partition, the start of its time partition (Long.MIN_VALUE: it names none). */
    private final Map<String, Map<PartitionValues, Long>> starts = new ConcurrentHashMap<>();

    /**
     * @param grains      per table, the grain of its time partitions, or null if it has none
     * @param policies    per table, what becomes of its late records
     * @param markedUntil per table, where its marks reach in the done table (Long.MIN_VALUE: none marked)
     */
    LateRecords(DoneBounds bounds, Function<String, TimeGrain> grains,
            Function<String, DoneConfig.LatePolicy> policies, ToLongBiFunction<String, TimeGrain> markedUntil,
            LongSupplier clock) {
        this.bounds = bounds;
        this.grains = grains;
        this.policies = policies;
        this.markedUntil = markedUntil;
        this.clock = clock;
    }

    @Override
    public Late of(String table, PartitionValues partition) {
        TimeGrain grain = grainOf.computeIfAbsent(table, t -> Optional.ofNullable(grains.apply(t))).orElse(null);
        if (grain == null) {
            return null;
        }
        long until = bounds.markedUntil(table);
        if (until == Long.MIN_VALUE) {
            until = readMarks(table, grain);
            if (until == Long.MIN_VALUE) {
                return null; // nothing of the table is marked: nothing is late
            }
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

    /** Where the table's marks reach, read from the done table once (a failed read: again a minute later). */
    private long readMarks(String table, TimeGrain grain) {
        long now = clock.getAsLong();
        if (now < readAt.getOrDefault(table, Long.MIN_VALUE)) {
            return Long.MIN_VALUE;
        }
        readAt.put(table, now + READ_AGAIN_MS); // the other encoding threads do not wait for this read
        try {
            long until = markedUntil.applyAsLong(table, grain);
            readAt.put(table, Long.MAX_VALUE);
            if (until != Long.MIN_VALUE) {
                bounds.advanced(table, until);
            }
        } catch (RuntimeException e) {
            log.warn("Could not read where the done marks of {} stand; its records are not checked for lateness "
                    + "until they are read, tried again in {} ms: {}", table, READ_AGAIN_MS, e.toString());
        }
        return bounds.markedUntil(table);
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
        return new PartitionValues(grain.columns(), timeValues(grain, partition)).path();
    }
}
