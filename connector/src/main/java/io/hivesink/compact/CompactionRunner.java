package io.hivesink.compact;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.StateHolds;
import io.hivesink.config.CompactionConfig;
import io.hivesink.config.TableConfig;
import io.hivesink.done.DoneListener;
import io.hivesink.done.PartitionMarker;
import io.hivesink.metastore.HiveTable;
import io.hivesink.table.PartitionValues;

/**
 * A task's compactions, on a thread of their own (a compaction waits for batches its own task commits, so it never
 * runs on the committing thread). The done marking hands it each time partition whose done row this task wrote (one
 * task per time partition), and at the task's start the last ones marked before that fall to it; it compacts their
 * Hive partitions one at a time, resting after each so that compactions
 * take at most {@code compaction.cpu.share} of the CPU time of a core. Every minute, and at its start, it ends stuck
 * compactions ({@link StuckHolds}) and retires those past their retention ({@link Retirement}). A failed compaction
 * is given up ({@link Compactor#giveUp}) and logged; the partition is tried again when a task starts.
 */
public final class CompactionRunner implements DoneListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CompactionRunner.class);
    /** How often stuck holds are looked for and old directories retired. */
    static final long SWEEP_EVERY_MS = 60_000;
    /**
     * How many time partitions before where the marks stand a task looks at when it starts: those whose compaction
     * a stop or crash interrupted before it began (they are not marked again).
     */
    static final int RESUMED_TIME_PARTITIONS = 48;

    /**
     * What the runner needs of the task.
     *
     * @param mergers      each table's merger, of its format
     * @param partitionsOf the Hive partitions of a time partition, as the done marker finds them
     */
    public record Parts(String connector, int task, int taskCount, String instance, String database, FileSystem fs,
            StateHolds holds, CompactionLog log, Function<String, HiveTable> tables,
            Function<String, TableConfig> configs, Function<TableConfig, FileMerger> mergers,
            BiFunction<PartitionMarker.TimeTable, Long, List<Partition>> partitionsOf) {
    }

    private final Parts parts;
    private final Compactor compactor;
    private final StuckHolds finder;
    private final Retirement retirement;
    private final double cpuShare;
    private final LongSupplier clock;
    /** Time partitions marked done, by their table and start. */
    private final BlockingQueue<Map.Entry<PartitionMarker.TimeTable, Long>> queue = new LinkedBlockingQueue<>();
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private Thread thread;
    private volatile boolean started;
    private volatile boolean stopped;
    private long sequence;
    private volatile CompactionObserver observer = CompactionObserver.NONE;

    public CompactionRunner(Parts parts, Compactor compactor, StuckHolds finder, Retirement retirement,
            CompactionConfig config, LongSupplier clock) {
        this.parts = parts;
        this.compactor = compactor;
        this.finder = finder;
        this.retirement = retirement;
        this.cpuShare = config.cpuShare();
        this.clock = clock;
    }

    /**
     * Starts the runner's thread.
     *
     * @param threadWrapper runs the thread's work as the task's identity
     * @param observer      the task's metrics
     */
    public synchronized void start(Function<Runnable, Runnable> threadWrapper, CompactionObserver observer) {
        this.observer = observer;
        thread = new Thread(threadWrapper.apply(this::run), "hive-sink-" + parts.instance() + "-compactor");
        thread.setDaemon(true);
        started = true;
        thread.start();
    }

    /** Takes a time partition this task marked done; its Hive partitions are compacted on the runner's thread. */
    @Override
    public void marked(PartitionMarker.TimeTable table, long start) {
        if (started && table.compacted()) {
            queue.add(Map.entry(table, start));
        }
    }

    /**
     * Takes the last {@link #RESUMED_TIME_PARTITIONS} time partitions marked before the task started that fall to
     * it (by a hash over the tasks), so that one whose compaction never began is compacted; one compacted already
     * holds too few files to be compacted again, and costs a listing.
     */
    @Override
    public void resumed(PartitionMarker.TimeTable table, long markedUntil) {
        if (!started || !table.compacted()) {
            return;
        }
        long start = markedUntil;
        for (int i = 0; i < RESUMED_TIME_PARTITIONS; i++) {
            start = table.grain().startOf(start - 1);
            String name = table.name() + "/" + table.timePartition(start);
            if (Math.floorMod(name.hashCode(), parts.taskCount()) == parts.task()) {
                queue.add(Map.entry(table, start));
            }
        }
    }

    /** Time partitions waiting to be compacted, for the metrics. */
    public int waiting() {
        return queue.size();
    }

    private void run() {
        long nextSweep = 0;
        while (!stopped) {
            try {
                if (clock.getAsLong() >= nextSweep) {
                    sweep();
                    nextSweep = clock.getAsLong() + SWEEP_EVERY_MS;
                }
                Map.Entry<PartitionMarker.TimeTable, Long> done = queue.poll(1, TimeUnit.SECONDS);
                if (done != null) {
                    compactAll(done.getKey(), done.getValue());
                }
            } catch (InterruptedException e) {
                return; // stopped
            } catch (RuntimeException e) {
                log.warn("Could not list the partitions of a time partition marked done; they stay as they are: {}",
                        e.toString());
            }
        }
    }

    private void compactAll(PartitionMarker.TimeTable table, long start) throws InterruptedException {
        for (Partition partition : parts.partitionsOf().apply(table, start)) {
            if (stopped) {
                return;
            }
            long started = cpuNanos();
            compact(table.name(), partition, new PartitionValues(table.partitionColumns(),
                    partition.getValues()).path());
            rest(cpuNanos() - started);
        }
    }

    /** The thread's CPU time where the JVM measures it, else the wall clock's: a compaction's wait is not work. */
    private static long cpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private void sweep() {
        try {
            finder.find(Set.copyOf(running));
            observer.swept(retirement.sweep());
        } catch (RuntimeException e) {
            log.warn("Could not look for stuck compactions or retire old directories; tried again in a minute: {}",
                    e.toString());
        }
    }

    private void compact(String table, Partition partition, String path) throws InterruptedException {
        TableConfig config = parts.configs().apply(table);
        if (parts.holds().holdIn(parts.task(), table, path) != null) {
            log.info("Partition {} of {} is not compacted now: another compaction's hold is on it", path, table);
            return;
        }
        HiveTable hiveTable = parts.tables().apply(table);
        sequence++;
        String id = CompactedBatches.id(parts.instance(), sequence);
        Compactor.Target target = new Compactor.Target(parts.connector(), parts.task(), table, path,
                new Path(partition.getSd().getLocation()), new Path(hiveTable.generation(path, id)), id,
                new MergeStep(parts.fs(), parts.mergers().apply(config), config.compaction().targetBytes(),
                        config.compaction().minFiles()));
        running.add(id);
        Compactor.Ended ended = null; // failed
        try {
            ended = compactor.compact(target);
        } catch (InterruptedException e) {
            Thread.interrupted(); // gave up as the task stops: what it made is undone now, not by a finder later
            giveUp(target, e);
            throw e;
        } catch (IOException | RuntimeException e) {
            log.warn("Compaction {} of partition {} of {} failed; it is given up: {}", id, path, table, e.toString());
            giveUp(target, e);
        } finally {
            running.remove(id);
        }
        report(target, ended);
    }

    /** Logs how a compaction ended and counts it; a count that fails changes nothing of the compaction. */
    private void report(Compactor.Target target, Compactor.Ended ended) {
        try {
            if (ended == Compactor.Ended.SWAPPED) {
                log.info("Compacted partition {} of {}.{} into {} (compaction {})", target.partition(),
                        parts.database(), target.table(), target.next(), target.compaction());
                parts.log().rows(target.compaction()).forEach(observer::compacted);
            } else if (ended != Compactor.Ended.SKIPPED) {
                if (ended != null) {
                    log.info("Compaction {} of partition {} of {} ended {}", target.compaction(), target.partition(),
                            target.table(), ended);
                }
                observer.notFinished();
            }
        } catch (RuntimeException e) {
            log.warn("Could not count compaction {} in the task's metrics: {}", target.compaction(), e.toString());
        }
    }

    private void giveUp(Compactor.Target target, Exception why) {
        try {
            compactor.giveUp(target);
        } catch (IOException | RuntimeException e) {
            e.addSuppressed(why);
            log.warn("Could not give up compaction {} of partition {} of {}; a task ends it once its hold is "
                    + "found stuck: {}", target.compaction(), target.partition(), target.table(), e.toString());
        }
    }

    private void rest(long workedNanos) throws InterruptedException {
        long restNanos = (long) (workedNanos * (1 - cpuShare) / cpuShare);
        TimeUnit.NANOSECONDS.sleep(restNanos);
    }

    /** Stops the thread; a compaction in flight is given up (undone unless decided), within the wait. */
    @Override
    public synchronized void close() {
        stopped = true;
        if (thread == null) {
            return;
        }
        thread.interrupt();
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
