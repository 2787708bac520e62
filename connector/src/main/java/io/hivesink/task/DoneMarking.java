package io.hivesink.task;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.done.DoneBounds;
import io.hivesink.done.DoneListener;
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
    static final DoneMarking NONE = new DoneMarking(null, null, null, null, null, 0, null, null, null) {
        @Override
        void markDue() {
        }
    };

    /** At most this many time partitions of a table are marked per round, so that a backlog is caught up in steps. */
    static final int MOST_PER_ROUND = 24;
    /** A round stops marking after this long, whatever is left: the next commit waits for it. */
    static final long ROUND_MS = 10_000;
    /** Notes of a round stop after this long, after its marks: the next commit waits for them. */
    static final long NOTES_MS = 5_000;
    /** A time partition is noted at most once this often (figures behind by at most so long). */
    static final long NOTE_EVERY_MS = 60_000;
    /**
     * How long a time partition that was not done when a batch landed in it is kept to be noted: its mark, when it
     * comes, counts the batch; only another task whose watermark ran ahead (states are read every 10 s) may have
     * marked it meanwhile. Bounds what records with event times far ahead leave behind.
     */
    static final long NOT_DONE_KEPT_MS = 300_000;
    /** A table with no time partition to start from is looked at again after this long, not at every commit. */
    static final long LOOK_AGAIN_MS = 60_000;

    private final TableWatermarks watermarks;
    private final PartitionMarker marker;
    private final DoneTable doneTable;
    private final Function<String, TimeTable> timeTables;
    private final ToLongFunction<String> delayMs;
    /** Per table, the start of the next time partition to mark. */
    private final Map<String, Long> next = new HashMap<>();
    private final Map<String, Boolean> failing = new HashMap<>();
    /** Per table with nothing to start from yet, when to look again. */
    private final Map<String, Long> lookAgainAt = new HashMap<>();
    private final long backfillMs;
    private final LongSupplier clock;
    /** Where the tables' marks reach, for the encoding threads to tell late records. */
    private final DoneBounds bounds;
    /** Time partitions batches landed in since the last round: noted then if they are marked done already. */
    private final Map<TimePartition, Long> toNote = new ConcurrentHashMap<>(); // when a batch landed there first
    /** When each time partition was last noted: one that takes late records at every commit is noted once a while. */
    private final Map<TimePartition, Long> notedAt = new ConcurrentHashMap<>();
    private final Set<TimePartition> failingNotes = new HashSet<>();
    /** Told of each time partition whose done row this task wrote, and of where marks stood at its first look. */
    private final DoneListener listener;

    /**
     * @param timeTables per table, what the marker needs of it, or null if it has no time partitions to mark
     * @param delayMs    per table, how far past a time partition's end its watermark must be
     * @param backfillMs how far before the watermark a table's first marks start, at most
     * @param bounds     told where each table's marks reach, as they are found and made
     * @param listener   told of each time partition whose done row this task wrote, and where each table's marks
     *                   stood at the task's first look (its compactions)
     */
    DoneMarking(TableWatermarks watermarks, PartitionMarker marker, DoneTable doneTable,
            Function<String, TimeTable> timeTables, ToLongFunction<String> delayMs, long backfillMs,
            LongSupplier clock, DoneBounds bounds, DoneListener listener) {
        this.listener = listener;
        this.bounds = bounds;
        this.backfillMs = backfillMs;
        this.clock = clock;
        this.watermarks = watermarks;
        this.marker = marker;
        this.doneTable = doneTable;
        this.timeTables = timeTables;
        this.delayMs = delayMs;
    }

    /** Marks what the watermarks passed, then notes the time partitions marked done where batches landed since. */
    void markDue() {
        long roundEnds = clock.getAsLong() + ROUND_MS;
        for (String table : watermarks.all().keySet()) {
            long watermark = watermarks.of(table);
            if (watermark == Watermarks.NONE) {
                continue;
            }
            try {
                markDue(table, watermark, roundEnds);
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
        notePending(clock.getAsLong() + NOTES_MS);
    }

    private void markDue(String table, long watermark, long roundEnds) {
        Long from = next.get(table);
        TimeTable timeTable = null;
        if (from == null) {
            long now = clock.getAsLong();
            if (now < lookAgainAt.getOrDefault(table, Long.MIN_VALUE)) {
                return;
            }
            timeTable = timeTables.apply(table);
            if (timeTable == null) {
                lookAgainAt.put(table, Long.MAX_VALUE); // not partitioned by time: never
                return;
            }
            from = firstToMark(table, timeTable, watermark);
            if (from == Long.MIN_VALUE) {
                lookAgainAt.put(table, now + LOOK_AGAIN_MS); // no time partition yet
                return;
            }
            lookAgainAt.remove(table);
            next.put(table, from);
        }
        long limit = watermark - delayMs.applyAsLong(table);
        for (int n = 0; n < MOST_PER_ROUND && clock.getAsLong() < roundEnds; n++) {
            if (timeTable == null) {
                timeTable = timeTables.apply(table);
            }
            long end = timeTable.grain().endOf(from);
            if (end > limit) {
                return;
            }
            long markStarted = clock.getAsLong();
            boolean wrote = marker.mark(timeTable, from, watermark);
            if (wrote) {
                listener.marked(timeTable, from);
            }
            // batches told before the mark began had their files in place when it counted them: nothing to note
            TimePartition marked = new TimePartition(table, from);
            Long landedAt = toNote.get(marked);
            if (landedAt != null && landedAt < markStarted) {
                toNote.remove(marked, landedAt);
            }
            log.info("Time partition {} of {} is done{}", timeTable.timePartition(from), table,
                    wrote ? "" : " (another task wrote its done row)");
            from = end;
            next.put(table, from);
            bounds.advanced(table, from);
        }
    }

    /**
     * A committed batch landed records in these Hive partitions of the table: their time partitions are looked at
     * in the next round. Takes note only: on the commit's thread, or the claim's for a batch rolled forward.
     */
    void landed(String table, Set<String> partitionPaths) {
        try {
            TimeTable timeTable = timeTables.apply(table);
            if (timeTable == null) {
                return;
            }
            for (String path : partitionPaths) {
                long start = timeTable.startOf(path);
                if (start != Long.MIN_VALUE) {
                    TimePartition landed = new TimePartition(table, start);
                    toNote.putIfAbsent(landed, clock.getAsLong());
                }
            }
        } catch (RuntimeException e) {
            log.warn("Could not tell the time partitions of {} that a batch landed in: {}", table, e.toString());
        }
    }

    /** A time partition of a table, by its start. */
    private record TimePartition(String table, long start) {
    }

    /**
     * Brings up to date the figures of the time partitions marked done where batches landed since (late records).
     * Only those that may be marked are looked up: before where this task's marks reach, or wholly below the table's
     * watermark (another task may have marked them); the others wait {@link #NOT_DONE_KEPT_MS} at most. Each is noted
     * at most once a {@link #NOTE_EVERY_MS}; one whose note fails is tried again at the next round.
     */
    private void notePending(long notesEnd) {
        long now = clock.getAsLong();
        notedAt.values().removeIf(at -> at < now - NOTE_EVERY_MS);
        for (Map.Entry<TimePartition, Long> entry : List.copyOf(toNote.entrySet())) {
            TimePartition pending = entry.getKey();
            if (clock.getAsLong() >= notesEnd) {
                return;
            }
            Long noted = notedAt.get(pending);
            if (noted != null && noted > now - NOTE_EVERY_MS) {
                continue; // noted a moment ago
            }
            try {
                TimeTable timeTable = timeTables.apply(pending.table());
                long watermark = watermarks.of(pending.table());
                if (timeTable == null) {
                    toNote.remove(pending);
                    continue;
                }
                if (pending.start() >= bounds.markedUntil(pending.table()) && (watermark == Watermarks.NONE
                        || timeTable.grain().endOf(pending.start()) > watermark)) {
                    if (entry.getValue() < now - NOT_DONE_KEPT_MS) {
                        toNote.remove(pending); // marked after the batch's files were there: counted by the mark
                    }
                    continue; // not done yet: looked at again while another task's watermark may be ahead
                }
                if (marker.note(timeTable, pending.start()) == PartitionMarker.Noted.UPDATED) {
                    notedAt.put(pending, clock.getAsLong());
                    log.info("Time partition {} of {}: its done figures are brought up to date with the batches that "
                            + "landed since it was marked", timeTable.timePartition(pending.start()), pending.table());
                }
                toNote.remove(pending);
                failingNotes.remove(pending);
            } catch (RuntimeException e) {
                if (failingNotes.add(pending)) {
                    log.warn("Could not bring the done figures of a time partition of {} starting at {} up to date; "
                            + "tried again after a later commit: {}", pending.table(),
                            java.time.Instant.ofEpochMilli(pending.start()), e.toString());
                }
            }
        }
    }

    /**
     * Where a table's marks start: after the last marked, or at its first time partition, but not more than the
     * backfill before the watermark (a record of 1970 would have every hour since marked).
     */
    private long firstToMark(String table, TimeTable timeTable, long watermark) {
        long until = doneTable.markedUntil(table, timeTable.grain());
        if (until != Long.MIN_VALUE) {
            bounds.advanced(table, until);
            listener.resumed(timeTable, until);
            return until;
        }
        long first = marker.firstStart(timeTable);
        if (first == Long.MIN_VALUE) {
            return first;
        }
        long back = watermark - backfillMs;
        return back > watermark ? first : Math.max(first, timeTable.grain().startOf(back)); // wrapped: no bound
    }
}
