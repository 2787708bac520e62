package io.hivesink.metrics;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;
import java.util.function.ToLongFunction;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.CloseReason;
import io.hivesink.commit.CommitSummary;
import io.hivesink.compact.CompactionLog;
import io.hivesink.compact.CompactionObserver;
import io.hivesink.compact.Retirement;
import io.hivesink.metastore.MetastoreCallObserver;

/**
 * A task's metrics, one place for their names and meaning (docs/operations.md lists the same): what the open
 * batch holds, why batches closed, what commits landed and where their time went, how far behind each table is,
 * how the metastore answers, and what was refused, sent to the dead-letter queue, skipped or held back. The parts
 * report events here; values that parts already keep are read when the metric is read.
 */
public final class TaskMetrics implements MetastoreCallObserver, CompactionObserver, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TaskMetrics.class);

    /** The commit steps timed, in order: {@code commit-<step>-time-ms-avg} and {@code -max} each. */
    static final List<String> STEPS = List.of("encode", "tables", "stage", "intent", "move", "register", "mark",
            "state");

    private final MetricsBackend backend;
    private final LongSupplier clock;
    private final Map<CloseReason, Sensor> closes = new ConcurrentHashMap<>();
    private final Map<String, Sensor> steps = new ConcurrentHashMap<>();
    private final Map<String, Long> newestCommittedTimestamp = new ConcurrentHashMap<>();
    private final Set<String> watermarkTables = ConcurrentHashMap.newKeySet();
    /** Metrics whose names an earlier instance of the task still holds in this worker: registered once it lets go. */
    private final Map<MetricName, MetricValueProvider<?>> taken = new ConcurrentHashMap<>();
    private final Sensor commits;
    private final Sensor commitTime;
    private final Sensor records;
    private final Sensor files;
    private final Sensor bytes;
    private final Sensor metastoreCalls;
    private final Sensor metastoreRetries;
    private final Sensor metastoreErrors;
    private final Sensor fencingRefusals;
    private final Sensor partitionsTaken;
    private final Sensor commitRetries;
    private final Sensor deadLettered;
    private final Sensor skipped;
    private final Sensor lateRecords;
    private final Sensor closeStall;
    private final Sensor offsetsAhead;
    private final Sensor compactions;
    private final Sensor compactedFiles;
    private final Sensor mergedFiles;
    private final Sensor rewrittenBytes;
    private final Sensor compactionsNotFinished;
    private final Sensor retiredDirectories;
    private volatile long retirementsOverdue;

    public TaskMetrics(MetricsBackend backend, LongSupplier clock) {
        this.backend = backend;
        this.clock = clock;
        for (CloseReason reason : CloseReason.values()) {
            closes.put(reason, total("batches-closed-by-" + reason.metricPart(), "Batches closed by "
                    + reason.metricPart().replace('-', ' ') + (reason == CloseReason.PARTITIONS_CLOSED
                            ? " (a rebalance or the task stopping)" : " (the limit was reached)")));
        }
        closeStall = timing("batch-close-stall", "How long put() stood still while a batch closed (waiting for the "
                + "batch before it, the last chunks' encoding and, unless batch.pipelined, the commit)");
        closeStall.add(backend.name("batch-close-stall-time-ms-total", "Time put() stood still at batch closes, "
                + "summed", Map.of()), new CumulativeSum());
        commits = total("batches-committed", "Batches committed");
        commitTime = timing("commit", "A batch commit, every step");
        for (String step : STEPS) {
            steps.put(step, timing("commit-" + step, "The " + step + " step of a batch commit"));
        }
        records = totalAndRate("records-committed", "Records committed (landed in tables)");
        files = total("files-committed", "Data files committed");
        bytes = totalAndRate("bytes-committed", "Bytes of data files committed");
        metastoreCalls = backend.sensor("metastore-calls");
        metastoreCalls.add(backend.name("metastore-calls-total", "Metastore calls", Map.of()), new CumulativeCount());
        metastoreCalls.add(backend.name("metastore-call-time-ms-avg", "Metastore call latency, average", Map.of()),
                new Avg());
        metastoreCalls.add(backend.name("metastore-call-time-ms-max", "Metastore call latency, maximum", Map.of()),
                new Max());
        metastoreRetries = total("metastore-retries", "Metastore calls repeated after a lost connection");
        metastoreErrors = total("metastore-errors", "Metastore calls that failed");
        fencingRefusals = total("fencing-refusals", "Commits refused because another instance of the task runs it "
                + "now (this one is a zombie and stops)");
        partitionsTaken = total("partitions-taken", "Kafka partitions another task claimed while this one held records "
                + "of them: those records were dropped for their new owner to land");
        commitRetries = total("commit-retries", "Batch commits that failed with a retriable error and were held");
        deadLettered = total("dead-letter-records", "Records sent to the errant-record reporter (dead-letter queue)");
        offsetsAhead = total("offsets-ahead-of-log", "Partitions whose committed offset lay past the end of their "
                + "Kafka log when claimed, read from the log's start (offsets.ahead.policy=log-start)");
        skipped = total("skipped-records", "Records skipped: null values ignored, or bad records with "
                + "errors.tolerance=all and no reporter");
        compactions = total("compactions", "Partitions this task compacted (swapped to their merged files)");
        compactedFiles = total("compaction-files-replaced", "Small files the compactions replaced");
        mergedFiles = total("compaction-files-written", "Files the compactions wrote in their place");
        rewrittenBytes = total("compaction-bytes-rewritten", "Bytes of the files the compactions wrote");
        compactionsNotFinished = total("compactions-not-finished", "Compactions undone (batches on their way did not "
                + "land in time, a late write erased a hold), given up, or that found the partition held");
        retiredDirectories = total("compaction-directories-retired", "Old directories removed after their retention");
        gauge("compaction-retirements-overdue", "Compactions past their retention whose old directory a sweep left: "
                + "not decided yet (their compactor stopped, and no finder has ended them)", () -> retirementsOverdue);
        lateRecords = total("late-records", "Records landed although their time partition was already marked done "
                + "(partition.late.policy=land); those the policy sends to the dead-letter queue are counted there");
    }

    /** A value the metric reads from a part when it is read (what the open batch holds, the budget used, ...). */
    public void gauge(String name, String description, LongSupplier value) {
        add(backend.name(name, description, Map.of()), (Gauge<Long>) (config, now) -> value.getAsLong());
    }

    /**
     * Registers a value read when the metric is read. Its name may still be taken by an earlier instance of this task
     * in the same worker, one Connect has not finished stopping (stuck in a call to a silent metastore, say): the
     * worker refuses a second metric of a name. A task does not fail for that: the metric is registered once the
     * earlier instance lets go of it, tried again at each commit.
     */
    private void add(MetricName name, MetricValueProvider<?> value) {
        try {
            backend.add(name, value);
        } catch (IllegalArgumentException taken) {
            if (this.taken.isEmpty()) {
                log.warn("The metric {} of this task is still registered by an earlier instance of it in this worker, "
                        + "which has not stopped yet; this instance's metrics that are taken are registered once it "
                        + "has: {}", name.name(), taken.getMessage());
            }
            this.taken.put(name, value);
        }
    }

    /** Registers the metrics whose names an earlier instance of the task has let go of since. */
    private void addTaken() {
        for (MetricName name : List.copyOf(taken.keySet())) {
            try {
                backend.add(name, taken.get(name));
                taken.remove(name);
            } catch (IllegalArgumentException stillTaken) {
                return; // its instance still runs: the next commit tries again
            }
        }
    }

    @Override
    public void compacted(CompactionLog.Row row) {
        compactions.record();
        compactedFiles.record(row.replacedFiles().size());
        mergedFiles.record(row.mergedFiles().size());
        rewrittenBytes.record((double) row.bytesAfter());
    }

    @Override
    public void notFinished() {
        compactionsNotFinished.record();
    }

    @Override
    public void swept(Retirement.Sweep sweep) {
        retiredDirectories.record(sweep.removed());
        retirementsOverdue = sweep.overdue();
    }

    public void batchClosed(CloseReason reason) {
        closes.get(reason).record();
    }

    /** How long the task thread stood still while a batch closed, before it could take records again. */
    public void closeStalled(long millis) {
        closeStall.record((double) millis);
    }

    /** A batch landed: its counts, its steps' times and, per table, the newest record timestamp it committed. */
    public void committed(CommitSummary summary, long encodeMs, Map<String, Long> newestTimestampPerTable) {
        addTaken();
        commits.record();
        CommitSummary.Landed landed = summary.landed();
        records.record((double) landed.records());
        files.record(landed.files());
        bytes.record((double) landed.bytes());
        CommitSummary.StepTimes took = summary.steps();
        long[] times = {encodeMs, took.tablesMs(), took.stagingMs(), took.intentMs(), took.movingMs(),
            took.registeringMs(), took.markingMs(), took.stateMs()};
        long total = 0;
        for (int i = 0; i < STEPS.size(); i++) {
            steps.get(STEPS.get(i)).record((double) times[i]);
            total += i == 0 ? 0 : times[i]; // encoding overlaps the batch's filling, not the commit
        }
        commitTime.record((double) total);
        newestTimestampPerTable.forEach((table, timestamp) -> {
            if (newestCommittedTimestamp.putIfAbsent(table, timestamp) == null) {
                add(backend.name("end-to-end-lag-ms", "Now minus the newest record timestamp committed "
                        + "to the table", Map.of("table", table)), (Gauge<Long>) (config, now) ->
                                clock.getAsLong() - newestCommittedTimestamp.get(table));
            }
            newestCommittedTimestamp.merge(table, timestamp, Math::max);
        });
    }

    /**
     * Registers the gauges of tables newly given a watermark: the watermark, and how far it is behind the wall clock.
     *
     * @param watermark      per table, in epoch milliseconds, or {@link Long#MIN_VALUE} while it has none
     * @param completeBefore per table, the start of its first time partition not complete, or
     *                       {@link Long#MIN_VALUE} if not known
     */
    public void tableWatermarks(Collection<String> tables, ToLongFunction<String> watermark,
            ToLongFunction<String> completeBefore) {
        for (String table : tables) {
            if (!watermarkTables.add(table)) {
                continue;
            }
            add(backend.name("table-watermark-ms", "The table's watermark, in epoch milliseconds: every record still "
                    + "to come is expected at or after this event time (partition.done.lateness.ms); -1 until "
                    + "every Kafka partition that feeds the table has committed an event time",
                    Map.of("table", table)), (Gauge<Long>) (config, now) -> knownOrMinusOne(
                            watermark.applyAsLong(table), w -> w));
            add(backend.name("table-watermark-lag-ms", "Now minus the table's watermark: how far behind the wall "
                    + "clock the table has landed in event time; -1 while it has no watermark",
                    Map.of("table", table)), (Gauge<Long>) (config, now) -> knownOrMinusOne(
                            watermark.applyAsLong(table), w -> clock.getAsLong() - w));
            add(backend.name("table-complete-before-ms", "The start of the table's first time partition (such as "
                    + "an hour) that the watermark has not passed, in epoch milliseconds: every time partition "
                    + "before it is complete; -1 while the table has no watermark or its pattern no time partitions",
                    Map.of("table", table)), (Gauge<Long>) (config, now) -> knownOrMinusOne(
                            completeBefore.applyAsLong(table), c -> c));
        }
    }

    /** A time shown as a gauge shows it: -1 for {@link Long#MIN_VALUE} (not known), else {@code shown} of it. */
    private static long knownOrMinusOne(long time, LongUnaryOperator shown) {
        return time == Long.MIN_VALUE ? -1L : shown.applyAsLong(time);
    }

    /** Per table committed to so far, now minus the newest record timestamp committed to it. */
    public Map<String, Long> lagMsByTable() {
        Map<String, Long> lag = new java.util.TreeMap<>();
        long now = clock.getAsLong();
        newestCommittedTimestamp.forEach((table, newest) -> lag.put(table, now - newest));
        return lag;
    }

    public void commitHeld() {
        commitRetries.record();
    }

    public void fenced() {
        fencingRefusals.record();
    }

    public void partitionsTaken(int partitions) {
        partitionsTaken.record(partitions);
    }

    public void offsetsAheadOfLog(int partitions) {
        offsetsAhead.record(partitions);
    }

    public void deadLettered(int count) {
        deadLettered.record(count);
    }

    public void skipped(long count) {
        skipped.record((double) count);
    }

    /** Late records landed by a committed batch. */
    public void lateLanded(long count) {
        lateRecords.record((double) count);
    }

    @Override
    public void called(long millis, int attempts, boolean failed) {
        metastoreCalls.record((double) millis);
        if (attempts > 1) {
            metastoreRetries.record(attempts - 1);
        }
        if (failed) {
            metastoreErrors.record();
        }
    }

    @Override
    public void close() {
        backend.close();
    }

    private Sensor total(String name, String description) {
        Sensor sensor = backend.sensor(name);
        sensor.add(backend.name(name + "-total", description, Map.of()), new CumulativeSum());
        return sensor;
    }

    private Sensor totalAndRate(String name, String description) {
        Sensor sensor = total(name, description);
        sensor.add(backend.name(name + "-rate", description + ", per second", Map.of()), new Rate());
        return sensor;
    }

    private Sensor timing(String name, String description) {
        Sensor sensor = backend.sensor(name + "-time");
        sensor.add(backend.name(name + "-time-ms-avg", description + ": average ms", Map.of()), new Avg());
        sensor.add(backend.name(name + "-time-ms-max", description + ": maximum ms", Map.of()), new Max());
        return sensor;
    }
}
