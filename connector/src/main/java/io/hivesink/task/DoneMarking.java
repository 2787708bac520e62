package io.hivesink.task;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.done.DoneTable;
import io.hivesink.done.PartitionMarker;
import io.hivesink.done.PartitionMarker.TimeTable;
import io.hivesink.done.TableWatermarks;
import io.hivesink.done.Watermarks;

/**
 * Marks the time partitions of the task's tables done as their watermarks pass them, in order, each once: where a
 * table's marks stand is read from the done table at the task's first look, then kept. Runs where the watermarks are
 * brought up to date (after a commit, on its thread). A failure leaves the table where it stands until a later
 * round; it never fails a commit. Tasks that feed one table may reach one of its time partitions at once: the done
 * table takes one row ({@link DoneTable}), and the steps before it may be made twice to the same effect.
 */
class DoneMarking {

    private static final Logger log = LoggerFactory.getLogger(DoneMarking.class);

    /** Marks nothing: {@code partition.done.markers=false}. */
    static final DoneMarking NONE = new DoneMarking(null, null, null, null, null) {
        @Override
        void markDue() {
        }
    };

    /** At most this many time partitions of a table are marked per round, so that a backlog is caught up in steps. */
    static final int MOST_PER_ROUND = 24;

    private final TableWatermarks watermarks;
    private final PartitionMarker marker;
    private final DoneTable doneTable;
    private final Function<String, TimeTable> timeTables;
    private final ToLongFunction<String> delayMs;
    /** Per table, the start of the next time partition to mark. */
    private final Map<String, Long> next = new HashMap<>();
    private final Map<String, Boolean> failing = new HashMap<>();

    /**
     * @param timeTables per table, what the marker needs of it, or null if it has no time partitions to mark
     * @param delayMs    per table, how far past a time partition's end its watermark must be
     */
    DoneMarking(TableWatermarks watermarks, PartitionMarker marker, DoneTable doneTable,
            Function<String, TimeTable> timeTables, ToLongFunction<String> delayMs) {
        this.watermarks = watermarks;
        this.marker = marker;
        this.doneTable = doneTable;
        this.timeTables = timeTables;
        this.delayMs = delayMs;
    }

    /** Marks what the watermarks passed. */
    void markDue() {
        for (String table : watermarks.all().keySet()) {
            long watermark = watermarks.of(table);
            if (watermark == Watermarks.NONE) {
                continue;
            }
            try {
                markDue(table, watermark);
                if (failing.remove(table) != null) {
                    log.info("Time partitions of {} are marked done again", table);
                }
            } catch (RuntimeException e) {
                if (failing.put(table, Boolean.TRUE) == null) {
                    log.warn("Could not mark the time partitions of {} done; tried again after a later commit: {}",
                            table, e.toString());
                }
            }
        }
    }

    private void markDue(String table, long watermark) {
        Long from = next.get(table);
        TimeTable timeTable = null;
        if (from == null) {
            timeTable = timeTables.apply(table);
            if (timeTable == null) {
                return;
            }
            long until = doneTable.markedUntil(table, timeTable.grain());
            from = until != Long.MIN_VALUE ? until : marker.firstStart(timeTable);
            if (from == Long.MIN_VALUE) {
                return; // no time partition yet
            }
            next.put(table, from);
        }
        long limit = watermark - delayMs.applyAsLong(table);
        for (int n = 0; n < MOST_PER_ROUND; n++) {
            if (timeTable == null) {
                timeTable = timeTables.apply(table);
            }
            long end = timeTable.grain().endOf(from);
            if (end > limit) {
                return;
            }
            boolean wrote = marker.mark(timeTable, from, watermark);
            log.info("Time partition {} of {} is done{}", timeTable.timePartition(from), table,
                    wrote ? "" : " (another task wrote its done row)");
            from = end;
            next.put(table, from);
        }
    }
}
