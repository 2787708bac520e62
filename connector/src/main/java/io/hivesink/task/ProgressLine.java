package io.hivesink.task;

import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * A summary a person can read, logged at most once a minute per task while it commits (a line per batch says too much
 * at a glance, metrics need a dashboard): batches and records since the last summary, the rate, the open batch, and
 * how far behind each table is.
 */
final class ProgressLine {

    private static final Logger log = LoggerFactory.getLogger(ProgressLine.class);
    static final long EVERY_MS = 60_000;

    private final String task;
    private final LongSupplier clock;
    private final Supplier<Map<String, Long>> lagMsByTable;
    private long since;
    private long batches;
    private long records;
    private long bytes;

    ProgressLine(String task, LongSupplier clock, Supplier<Map<String, Long>> lagMsByTable) {
        this.task = task;
        this.clock = clock;
        this.lagMsByTable = lagMsByTable;
        this.since = clock.getAsLong();
    }

    void committed(long batchRecords, long batchBytes) {
        batches++;
        records += batchRecords;
        bytes += batchBytes;
    }

    /** Logs the summary if a minute has passed since the last one and something was committed meanwhile. */
    void logIfDue(long openRecords, long openBytes) {
        String summary = summaryIfDue(openRecords, openBytes);
        if (summary != null) {
            log.info(summary);
        }
    }

    /** The summary, and a new period begun, if one is due; else null. */
    String summaryIfDue(long openRecords, long openBytes) {
        long now = clock.getAsLong();
        long elapsed = now - since;
        if (elapsed < EVERY_MS || batches == 0) {
            return null;
        }
        StringBuilder lags = new StringBuilder();
        lagMsByTable.get().forEach((table, lag) -> lags.append(lags.length() == 0 ? "" : ", ").append(table)
                .append(' ').append(String.format(Locale.ROOT, "%.1f s", lag / 1000.0)));
        String summary = String.format(Locale.ROOT, "Task %s: %d batches, %d records (%d records/s, %s) in the last "
                + "%d s; open batch %d records (%s); lag per table: %s", task, batches, records,
                records * 1000 / Math.max(1, elapsed), MemoryBudget.mib(bytes), elapsed / 1000, openRecords,
                MemoryBudget.mib(openBytes), lags);
        since = now;
        batches = 0;
        records = 0;
        bytes = 0;
        return summary;
    }
}
